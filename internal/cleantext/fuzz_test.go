package cleantext

import (
	"bytes"
	"testing"
	"unicode/utf8"
)

// FuzzWriter: however the input is split, the Writer gives String(input);
// the text is valid UTF-8 when the input is; no ESC, "\r" or other control
// but TAB and LF is left; and input without control bytes is unchanged.
func FuzzWriter(f *testing.F) {
	for _, tc := range allCases() {
		f.Add([]byte(tc.input), uint(len(tc.input)/2))
	}
	f.Fuzz(func(t *testing.T, input []byte, split uint) {
		want := String(string(input))
		at := int(split % uint(len(input)+1))
		if got := cleanTwoWrites(input[:at], input[at:]); got != want {
			t.Fatalf("split at %d: %q + %q\n got %q\nwant %q", at, input[:at], input[at:], got, want)
		}
		if got := cleanByteByByte(input); got != want {
			t.Fatalf("byte by byte: %q\n got %q\nwant %q", input, got, want)
		}
		if utf8.Valid(input) && !utf8.ValidString(want) {
			t.Fatalf("%q: text %q is not valid UTF-8", input, want)
		}
		if i := indexControl([]byte(want)); i >= 0 {
			t.Fatalf("%q: text %q holds control %q at %d", input, want, want[i], i)
		}
		if indexControl(input) < 0 && want != string(input) {
			t.Fatalf("%q has no controls but became %q", input, want)
		}
	})
}

// indexControl returns the index of the first C0 control other than TAB
// and LF, or DEL, in p, or -1.
func indexControl(p []byte) int {
	for i, b := range p {
		if b < 0x20 && b != '\t' && b != '\n' || b == 0x7f {
			return i
		}
	}
	return -1
}

func cleanTwoWrites(a, b []byte) string {
	var out bytes.Buffer
	c := NewWriter(&out)
	c.Write(a)
	c.Write(b)
	c.Close()
	return out.String()
}

func cleanByteByByte(input []byte) string {
	var out bytes.Buffer
	c := NewWriter(&out)
	for i := range input {
		c.Write(input[i : i+1])
	}
	c.Close()
	return out.String()
}

// The eight-bytes-at-a-time scan agrees with the byte-by-byte definition
// for every byte value in every position.
func TestCleanPrefixMatchesIsSpecial(t *testing.T) {
	for b := range 256 {
		for pos := range 17 {
			p := bytes.Repeat([]byte("a\t\n\xc3\xa9"), 4)[:17]
			p[pos] = byte(b)
			want := len(p)
			for i, x := range p {
				if isSpecial(x) {
					want = i
					break
				}
			}
			if got := cleanPrefix(p); got != want {
				t.Fatalf("byte %#x at %d: cleanPrefix = %d, want %d", b, pos, got, want)
			}
		}
	}
}

func FuzzCleanPrefix(f *testing.F) {
	f.Add([]byte("12345\n\t\x1b[0m\x7f\x80\xff"))
	f.Fuzz(func(t *testing.T, p []byte) {
		want := len(p)
		for i, x := range p {
			if isSpecial(x) {
				want = i
				break
			}
		}
		if got := cleanPrefix(p); got != want {
			t.Fatalf("%q: cleanPrefix = %d, want %d", p, got, want)
		}
	})
}
