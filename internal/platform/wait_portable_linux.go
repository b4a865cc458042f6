//go:build linux && portable

package platform

// sleepingThreads: whether no thread of pid runs, how many it has; known unless it is gone.
func sleepingThreads(pid int) (asleep bool, threads int, known bool) {
	asleep = true
	for _, dir := range taskDirs(pid) {
		threads++
		asleep = asleep && taskState(dir) == 'S'
	}
	return asleep, threads, threads > 0
}
