package e2e

import (
	"bufio"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The test binary doubles as a REPL with known, awkward behaviour (as
// os/exec's tests do with helper processes): run with PTB_FAKE_REPL set,
// it reads commands from the terminal in cooked mode at the prompt
// "fake> ", continuation lines at "....> ".
const (
	fakeREPLEnv    = "PTB_FAKE_REPL"
	fakePrompt     = `^fake> `
	fakeContinuing = `^\.\.\.\.> `
)

// fakeREPLCommand is the --repl-start command that runs the fake REPL.
func fakeREPLCommand() string { return fakeREPLEnv + "=1 " + os.Args[0] }

// runFakeREPL understands:
//
//	echo TEXT     prints TEXT
//	say TEXT      prints TEXT without a newline
//	lookalike     prints "fake> " (a prompt, no newline), sleeps 1.5 s, prints "done"
//	sleep SECS    sleeps; Ctrl-C cuts it short ("Interrupted")
//	ticks N       prints N lines, one every 100 ms
//	block         reads lines at "....> " until an empty one, then counts them
//	heredoc       reads lines at "....> " until one is END
//	ask TEXT      prints TEXT (no newline), reads a line, prints "answer: LINE"
//	pid           prints its process id
//	exit CODE     exits with CODE
//	die           kills itself with SIGKILL
//	stubborn      from now on ignores Ctrl-D (end of input)
func runFakeREPL() int {
	interrupts := make(chan os.Signal, 1)
	signal.Notify(interrupts, syscall.SIGINT)
	in := bufio.NewReader(os.Stdin)
	fmt.Println("fake REPL 1.0")
	stubborn := false
	for {
		fmt.Print("fake> ")
		line, err := in.ReadString('\n')
		if err != nil && stubborn {
			fmt.Println("(use exit)")
			continue
		}
		if err != nil {
			fmt.Println()
			return 0 // Ctrl-D
		}
		drain(interrupts) // a Ctrl-C at the prompt just drops the line
		cmd, arg, _ := strings.Cut(strings.TrimSpace(line), " ")
		switch cmd {
		case "":
		case "echo":
			fmt.Println(arg)
		case "say":
			fmt.Print(arg)
		case "lookalike":
			fmt.Print("fake> ")
			time.Sleep(1500 * time.Millisecond)
			fmt.Println("done")
		case "sleep":
			secs, _ := strconv.ParseFloat(arg, 64)
			select {
			case <-time.After(time.Duration(secs * float64(time.Second))):
			case <-interrupts:
				fmt.Println("Interrupted")
			}
		case "ticks":
			n, _ := strconv.Atoi(arg)
			for i := 1; i <= n; i++ {
				time.Sleep(100 * time.Millisecond)
				fmt.Println("tick", i)
			}
		case "block":
			n := 0
			for {
				fmt.Print("....> ")
				l, err := in.ReadString('\n')
				if err != nil || strings.TrimSpace(l) == "" {
					break
				}
				n++
			}
			fmt.Printf("block of %d lines\n", n)
		case "heredoc":
			for {
				fmt.Print("....> ")
				l, err := in.ReadString('\n')
				if err != nil || strings.TrimSpace(l) == "END" {
					break
				}
			}
		case "ask":
			fmt.Print(arg + " ")
			l, _ := in.ReadString('\n')
			fmt.Println("answer:", strings.TrimSpace(l))
		case "pid":
			fmt.Println(os.Getpid())
		case "exit":
			code, _ := strconv.Atoi(arg)
			return code
		case "stubborn":
			stubborn = true
		case "die":
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		default:
			fmt.Printf("unknown command %q\n", cmd)
		}
	}
}

func drain(c chan os.Signal) {
	for {
		select {
		case <-c:
		default:
			return
		}
	}
}
