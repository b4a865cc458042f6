//go:build linux && !portable

package platform

import (
	"fmt"
	"os"
	"testing"
)

func TestExecImageIsWhereTheKernelPlacedTheCode(t *testing.T) {
	p, err := ReadProc(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if p.Image == "" || ExecImage(os.Getpid()) != fmt.Sprintf("%d %s", os.Getpid(), p.Image) {
		t.Fatalf("no exec image: %+v", p)
	}
}
