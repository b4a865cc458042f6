package remote

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestSessionNameIsTheHostsAsAValidName(t *testing.T) {
	for dest, want := range map[string]string{"web1": "web1", "deploy@web1.example.com": "web1-example-com", "[::1]": "---1-"} {
		if got := SessionName(dest); got != want {
			t.Errorf("SessionName(%q) = %q, want %q", dest, got, want)
		}
	}
}

func TestRecordRoundTripAndList(t *testing.T) {
	dir := t.TempDir()
	r := &Record{Name: "web1", Dest: "deploy@web1", SSH: []string{"ssh", "-p", "2222"}, Socket: filepath.Join(dir, "ssh-1"), Ptysend: "/h/.cache/ptybridge/v-1/ptysend", Linger: "24h0m0s"}
	if err := r.Save(dir); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(RecordPath(dir, "web1")); fi.Mode().Perm() != 0o600 {
		t.Fatalf("the record has mode %v", fi.Mode())
	}
	got, ok := Find(dir, "web1")
	if !ok || !reflect.DeepEqual(got, r) {
		t.Fatalf("Find: %+v %v", got, ok)
	}
	if _, ok := Find(dir, "web2"); ok {
		t.Fatal("found a record never saved")
	}
	if l := List(dir); len(l) != 1 || l[0].Name != "web1" || l[0].Host() != "web1" {
		t.Fatalf("List: %+v", l)
	}
	r.Remove(dir)
	if _, ok := Find(dir, "web1"); ok {
		t.Fatal("found a removed record")
	}
}

func TestControlSocketIsShort(t *testing.T) {
	p, err := ControlSocket("/run/user/1000/ptybridge", strings.Repeat("n", 200))
	if err != nil || len(p) > 60 {
		t.Fatalf("%q %v", p, err)
	}
	if _, err := ControlSocket("/"+strings.Repeat("d", 100), "web1"); err == nil {
		t.Fatal("a socket path too long for sun_path was accepted")
	}
}

func TestArgvSurvivesTheTrip(t *testing.T) {
	argv := []string{"--session", "web1", "--", `printf '%s' "it's" '!$x' "a\nb\\"`}
	js, _ := json.Marshal(argv)
	enc := hex.EncodeToString(js)
	if !SafeWord(enc) {
		t.Fatalf("%q is no safe word", enc)
	}
	got, err := DecodeArgv(enc)
	if err != nil || !reflect.DeepEqual(got, argv) {
		t.Fatalf("%q %v", got, err)
	}
	if _, err := DecodeArgv("zz"); err == nil {
		t.Fatal("bad hex decoded")
	}
}

func TestSafeWord(t *testing.T) {
	for s, want := range map[string]bool{"/home/a/.cache/ptybridge/v1.2-ab/ptysend": true, "deploy@web1": true, "": false, "a b": false, "it's": false, "$HOME": false, "a!b": false, `a\b`: false} {
		if SafeWord(s) != want {
			t.Errorf("SafeWord(%q) != %v", s, want)
		}
	}
}
