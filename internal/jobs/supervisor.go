package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/ptybridge/ptybridge/internal/call"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/platform"
)

// spec is the job ptysend --job hands the supervisor, in a private file
// or a spare's fifo: its environment may be longer than a tmux command.
type spec struct {
	ID      markers.ID `json:"id"`
	Name    string     `json:"name"`
	Shell   string     `json:"shell"`   // the shell's program: bash, zsh, fish, dash...
	Command string     `json:"command"` // shell code for that shell, as the agent wrote it
	Dir     string     `json:"dir"`
	Env     []string   `json:"env"`
}

// RunSupervisor is the process of a job's window: it runs the job of the spec file at path and
// returns its exit status (for remain-on-exit). The job's shell runs "-c COMMAND" as a process
// group of its own in the terminal's foreground, where keys typed in the window reach it, never
// the supervisor, which learns its status however it ends. It exits only once the relay has
// read END (SIGUSR2): tmux may lose what a pane's process wrote last, when it learns of the
// exit before it read it all.
func RunSupervisor(path string) int {
	sp, err := readSpec(path)
	os.Remove(path)
	if err != nil || !sp.ID.Valid() {
		fmt.Printf("ptysend: the job could not start: reading its description: %v\n", err)
		return 125
	}
	return supervise(sp)
}

func readSpec(path string) (sp spec, err error) {
	b, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(b, &sp)
	}
	return sp, err
}

// supervise runs the job sp on the process's terminal.
func supervise(sp spec) int {
	ack := make(chan os.Signal, 1)
	signal.Notify(ack, syscall.SIGUSR2)
	os.Stdout.WriteString(markers.Start(sp.ID))
	status := runJob(sp)
	// Take the terminal back, so that the END marker cannot stop on
	// SIGTTOU (stty tostop) and the window's last state is ours.
	signal.Ignore(syscall.SIGTTOU)
	platform.SetForegroundGroup(os.Stdin, syscall.Getpgrp())
	os.Stdout.WriteString(markers.End(sp.ID, status))
	select {
	case <-ack:
	case <-time.After(20 * time.Second):
	}
	return status
}

// runJob runs the job and returns its exit status as a shell says it.
func runJob(sp spec) int {
	errR, errW, err := os.Pipe()
	if err != nil {
		fmt.Printf("ptysend: the job could not start: %v\r\n", err)
		return 125
	}
	// SIGUSR1, the last phase of --job-stop, kills the job's process group
	// (it stays caught: the supervisor outlives the job).
	killed, _ := signal.NotifyContext(context.Background(), syscall.SIGUSR1)
	cmd := exec.CommandContext(killed, sp.Shell, "-c", sp.Command)
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.Args[0] = filepath.Base(sp.Shell)
	cmd.Dir, cmd.Env = sp.Dir, jobEnv(sp)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdin, errW
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Foreground: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		errR.Close()
		errW.Close()
		fmt.Printf("ptysend: the job could not start: %v\r\n", err)
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
			return 127
		}
		return 126
	}
	errW.Close()
	copied := make(chan struct{})
	go func() {
		call.ShowStderr(sp.ID, os.Stdout, errR) // framed, as a command's
		close(copied)
	}()
	cmd.Wait()
	// The job's stderr shows before the END marker; a process of the job's
	// left in the background may hold the pipe open: not for long.
	select {
	case <-copied:
	case <-time.After(200 * time.Millisecond):
	}
	errR.Close()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()) // as a shell says it
	}
	return cmd.ProcessState.ExitCode()
}

// jobEnv is the job's environment: the shared shell's, then --env, with tmux's variables for
// the job's window and PTYBRIDGE_JOB instead of theirs.
func jobEnv(sp spec) []string {
	env := slices.DeleteFunc(slices.Clone(sp.Env), func(kv string) bool {
		key, _, ok := strings.Cut(kv, "=")
		return !ok || key == "" || key == "TMUX" || key == "TMUX_PANE" || key == "PTYBRIDGE_JOB"
	})
	for _, key := range []string{"TMUX", "TMUX_PANE"} {
		if v, ok := os.LookupEnv(key); ok {
			env = append(env, key+"="+v)
		}
	}
	return append(env, "PTYBRIDGE_JOB="+sp.Name)
}
