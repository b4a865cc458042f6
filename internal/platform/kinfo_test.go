package platform

import (
	"encoding/binary"
	"slices"
	"testing"
)

// A struct kinfo_proc as FreeBSD 14 on amd64 fills it, the fields ptysend reads set at their
// offsets in sys/user.h.
func freebsdKinfo(pid, ppid int, stat byte, tdev uint64) []byte {
	b := make([]byte, freebsdKinfoSize)
	put32 := func(off, v int) { binary.LittleEndian.PutUint32(b[off:], uint32(int32(v))) }
	put32(0, freebsdKinfoSize)
	put32(kiPID, pid)
	put32(kiPPID, ppid)
	put32(kiPGID, pid)
	put32(kiTPGID, pid+1)
	put32(kiSID, ppid)
	put32(kiUID, 1001)
	binary.LittleEndian.PutUint64(b[kiStart:], 1_700_000_000)
	binary.LittleEndian.PutUint64(b[kiStart+8:], 250_000)
	b[kiStat] = stat
	copy(b[kiComm:], "sleep\x00")
	binary.LittleEndian.PutUint64(b[kiTdev:], tdev)
	put32(kiJID, 3)
	put32(kiNumThreads, 2)
	return b
}

func TestParseFreeBSDKinfo(t *testing.T) {
	got, err := parseFreeBSDKinfo(freebsdKinfo(4242, 1, 3, 0x5c))
	if err != nil {
		t.Fatal(err)
	}
	want := procInfo{
		Proc: Proc{PID: 4242, PPID: 1, PGID: 4242, SID: 1, State: 'S', TTY: 0x5c, TPGID: 4243,
			Start: 1_700_000_000_250_000},
		uid: 1001, jail: 3, comm: "sleep", threads: 2,
	}
	if got != want {
		t.Fatalf("parseFreeBSDKinfo = %+v, want %+v", got, want)
	}
	if p, _ := parseFreeBSDKinfo(freebsdKinfo(1, 0, 2, freebsdNoDevice)); p.TTY != 0 || p.State != 'R' {
		t.Fatalf("no terminal, running: %+v", p)
	}
	if _, err := parseFreeBSDKinfo(make([]byte, 768)); err == nil { // a 32-bit CPU's
		t.Fatal("an unknown layout is read")
	}
	all, err := parseFreeBSDKinfos(slices.Concat(freebsdKinfo(1, 0, 3, 0), freebsdKinfo(2, 1, 4, 0)))
	if err != nil || len(all) != 2 || all[1].PID != 2 || all[1].State != 'T' {
		t.Fatalf("parseFreeBSDKinfos = %+v, %v", all, err)
	}
}

func TestParseProcArgs2(t *testing.T) {
	b := binary.LittleEndian.AppendUint32(nil, 2)
	b = append(b, "/bin/sleep\x00\x00\x00\x00sleep\x0060\x00HOME=/Users/ada\x00TERM=tmux\x00\x00ptr_munge=\x00"...)
	exe, args, env := parseProcArgs2(b)
	if exe != "/bin/sleep" || !slices.Equal(args, []string{"sleep", "60"}) ||
		!slices.Equal(env, []string{"HOME=/Users/ada", "TERM=tmux"}) {
		t.Fatalf("parseProcArgs2 = %q, %q, %q", exe, args, env)
	}
	if exe, args, env := parseProcArgs2([]byte{1}); exe != "" || args != nil || env != nil {
		t.Fatal("a short answer is read")
	}
}

func TestNulSeparated(t *testing.T) {
	if got := nulSeparated([]byte("bash\x00-i\x00")); !slices.Equal(got, []string{"bash", "-i"}) {
		t.Fatalf("nulSeparated = %q", got)
	}
	if got := nulSeparated(nil); got != nil {
		t.Fatalf("nulSeparated(nil) = %q", got)
	}
}

func TestParseTheWorkingDirectories(t *testing.T) {
	file := make([]byte, 1392) // FreeBSD's struct kinfo_file
	copy(file[kinfoFilePathOffset:], "/home/ada\x00")
	if dir, err := parseFreeBSDKinfoFile(file); err != nil || dir != "/home/ada" {
		t.Fatalf("parseFreeBSDKinfoFile = %q, %v", dir, err)
	}
	vnode := make([]byte, darwinVnodePathInfoSize) // macOS's struct proc_vnodepathinfo
	copy(vnode[darwinCwdOffset:], "/Users/ada\x00")
	copy(vnode[darwinCwdOffset+1024+152:], "/\x00") // the root directory's
	if dir, err := parseDarwinCwd(vnode); err != nil || dir != "/Users/ada" {
		t.Fatalf("parseDarwinCwd = %q, %v", dir, err)
	}
	if _, err := parseDarwinCwd(vnode[:100]); err == nil {
		t.Fatal("a short answer is read")
	}
}

func TestParseDarwinTaskInfo(t *testing.T) {
	b := make([]byte, darwinTaskInfoSize)
	binary.LittleEndian.PutUint32(b[darwinThreadNumOffset:], 7)
	binary.LittleEndian.PutUint32(b[darwinNumRunningOffset:], 1)
	if threads, running, err := parseDarwinTaskInfo(b); threads != 7 || running != 1 || err != nil {
		t.Fatalf("parseDarwinTaskInfo = %d, %d, %v", threads, running, err)
	}
}
