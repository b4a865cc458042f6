package markers_test

import (
	"bytes"
	"math/rand/v2"
	"regexp"
	"testing"

	"github.com/ptybridge/ptybridge/internal/markers"
)

// chunks cuts data into pieces whose sizes come from seed: empty, tiny,
// small and large pieces all occur.
func chunks(data []byte, seed uint64) [][]byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var cs [][]byte
	for len(data) > 0 {
		var n int
		switch r.IntN(4) {
		case 0:
			n = 0
		case 1:
			n = 1 + r.IntN(3)
		case 2:
			n = 1 + r.IntN(64)
		default:
			n = r.IntN(len(data) + 1)
		}
		n = min(n, len(data))
		cs = append(cs, data[:n])
		data = data[n:]
	}
	return cs
}

// FuzzExtractorSplits: whatever the command prints to stdout and stderr,
// however ptysend's frames of its stderr fall between its output, whatever
// surrounds the markers and however the stream is chunked, the extractor
// returns exactly the command's stdout and status.
func FuzzExtractorSplits(f *testing.F) {
	f.Add([]byte(typedEcho), []byte("hello\n"), []byte(""), []byte(nextPrompt), uint8(0), uint64(1))
	f.Add([]byte(""), []byte(""), []byte(""), []byte(""), uint8(255), uint64(2))
	f.Add([]byte("$ "), []byte("a\r\nb\rc\r"), []byte("err\n"), []byte("\r\n$ "), uint8(1), uint64(3))
	f.Add([]byte("\x1b]133;C\a"), []byte("日本語 🎉\n\t\n"), []byte("Continue? [y/N] "), []byte(markers.End(ourID, 4)), uint8(130), uint64(4))
	f.Add([]byte(markers.Start(otherID)), []byte("x"+markers.End(otherID, 0)+"\x1b]69"), []byte("\x1b]6973;ptybridge;r;"), []byte(""), uint8(127), uint64(5))
	f.Add([]byte(""), []byte(endPrefix(ourID)+"12x\n"+endPrefix(ourID)), []byte(markers.End(ourID, 0)+"\r"), []byte("junk"), uint8(2), uint64(6))
	f.Fuzz(func(t *testing.T, before, out, errs, after []byte, status uint8, seed uint64) {
		if bytes.Contains(before, []byte(markers.Start(ourID))) {
			t.Skip("the junk before START holds our START")
		}
		if ourEND.Match(out) || bytes.Contains(out, opener[:len(opener)-len(ourID)-1]) || bytes.Contains(errs, closer[:len(closer)-len(ourID)-1]) {
			t.Skip("the command printed our END or frame markers, which it cannot know")
		}
		stream := append([]byte(nil), before...)
		stream = append(stream, markers.Start(ourID)...)
		stream = append(stream, interleave(onlcr(string(out)), onlcr(string(errs)), seed)...)
		stream = append(stream, markers.End(ourID, int(status))...)
		stream = append(stream, after...)
		got := feedChunks(t, chunks(stream, seed))
		check(t, "fuzzed chunks", got, finished(string(out), int(status)))
	})
}

// The frame markers of ourID.
var (
	opener = markers.AppendStderrFrame(nil, ourID, nil)[:len(markers.AppendStderrFrame(nil, ourID, nil))/2]
	closer = markers.AppendStderrFrame(nil, ourID, nil)[len(markers.AppendStderrFrame(nil, ourID, nil))/2:]
)

// interleave cuts out and errs at places that come from seed and puts a
// frame of each piece of errs (our call's or another's) between the pieces
// of out, as the terminal shows what the command and ptysend wrote: each
// write() whole. The terminal keeps "\r\n" made from one "\n" together.
func interleave(out, errs string, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 42))
	cut := func(s string) []string {
		var pieces []string
		for len(s) > 0 {
			n := min(len(s), 1+r.IntN(8))
			if n < len(s) && s[n-1] == '\r' && s[n] == '\n' {
				n++
			}
			pieces = append(pieces, s[:n])
			s = s[n:]
		}
		return pieces
	}
	outs, errPieces := cut(out), cut(errs)
	var b []byte
	for len(outs) > 0 || len(errPieces) > 0 {
		if len(errPieces) > 0 && (len(outs) == 0 || r.IntN(2) == 0) {
			// ours, or an earlier call's background job's
			b = markers.AppendStderrFrame(b, []markers.ID{ourID, otherID}[r.IntN(2)], []byte(errPieces[0]))
			errPieces = errPieces[1:]
		} else {
			b = append(b, outs[0]...)
			outs = outs[1:]
		}
	}
	return b
}

// ourEND matches a complete END marker of ours.
var ourEND = regexp.MustCompile(regexp.QuoteMeta(endPrefix(ourID)) + `[0-9]{1,3}\a`)

// reference is a plain reading of the framing rules: what lies between
// the first START and the first complete END after it, "\r\n" turned into
// "\n". ok is false when the stream does not hold both.
func reference(stream []byte) (r result, ok bool) {
	start := []byte(markers.Start(ourID))
	i := bytes.Index(stream, start)
	if i < 0 {
		return result{}, false
	}
	rest, _ := withoutFrames(stream[i+len(start):])
	m := ourEND.FindIndex(rest)
	if m == nil {
		return result{}, false
	}
	status := 0
	for _, c := range rest[m[0]+len(endPrefix(ourID)) : m[1]-1] {
		status = status*10 + int(c-'0')
	}
	out := bytes.ReplaceAll(rest[:m[0]], []byte("\r\n"), []byte("\n"))
	return finished(string(out), status), true
}

// withoutFrames removes the frames of stderr of any call: an opening
// marker (its prefix, an id, BEL) and the first end marker of its id
// after it, within the greatest length of a frame. An opening marker whose
// end may still come (the stream is shorter than a frame) holds the rest
// back: cut is true, and clean ends before it.
func withoutFrames(stream []byte) (clean []byte, cut bool) {
	prefix := []byte("\x1b]6973;ptybridge;R;")
	for {
		i := bytes.Index(stream, prefix)
		if i < 0 {
			return append(clean, stream...), false
		}
		clean = append(clean, stream[:i]...)
		rest := stream[i+len(prefix):]
		if len(rest) <= 16 {
			return clean, true // its id may still come
		}
		if !regexp.MustCompile("^[0-9a-f]{16}\a").Match(rest) {
			clean = append(clean, prefix...)
			stream = rest
			continue
		}
		open := len(prefix) + 17
		end := []byte("\x1b]6973;ptybridge;r;" + string(rest[:16]) + "\a")
		j := bytes.Index(stream[i+open:], end)
		switch {
		case j >= 0 && open+j+len(end) <= markers.MaxStderrFrame:
			stream = stream[i+open+j+len(end):]
		case j < 0 && len(stream)-i < markers.MaxStderrFrame:
			return clean, true
		default:
			clean = append(clean, stream[i:i+open]...)
			stream = stream[i+open:]
		}
	}
}

// FuzzExtractorNeverPanics: on any stream, chunked any way, the extractor
// does not panic, agrees with itself fed in one chunk, and with the
// reference when the stream holds both markers; what it writes is never
// longer than what it was fed and holds no END marker of ours.
func FuzzExtractorNeverPanics(f *testing.F) {
	f.Add([]byte(""), uint64(0))
	f.Add([]byte(call(typedEcho, "hello\n", 0, nextPrompt)), uint64(1))
	f.Add([]byte(call("", "a\r\r\nb\r", 255, "")), uint64(2))
	f.Add([]byte(markers.Start(ourID)+"x"+endPrefix(ourID)+"1234\a"+endPrefix(ourID)+"\a"), uint64(3))
	f.Add([]byte(markers.Start(ourID)+markers.Start(ourID)+endPrefix(ourID)+"9"), uint64(4))
	f.Add([]byte(markers.Start(otherID)+"y"+markers.End(otherID, 1)+markers.End(ourID, 1)), uint64(5))
	f.Add([]byte("\x1b]6973;ptybridge;S;0123456789abcdef\a\r\r\r\n\x1b]6973;ptybridge;E;0123456789abcdef;00"), uint64(6))
	f.Add([]byte(markers.Start(ourID)+"a\r"+errFrame(ourID, "e\n"+markers.End(ourID, 3))+"\nb"+string(opener)+markers.End(ourID, 1)), uint64(7))
	f.Add([]byte(markers.Start(ourID)+string(opener)+string(opener)+"x"+string(closer)+string(closer)+markers.End(ourID, 0)), uint64(8))
	f.Add([]byte(markers.Start(ourID)+errFrame(otherID, "a")+"\x1b]6973;ptybridge;R;xyz"+markers.End(ourID, 0)+"\x1b]6973;ptybridge;R;01"), uint64(9))
	f.Fuzz(func(t *testing.T, stream []byte, seed uint64) {
		got := feedChunks(t, chunks(stream, seed))
		whole := feedChunks(t, [][]byte{stream})
		check(t, "chunked vs one chunk", got, whole)

		if want, ok := reference(stream); ok {
			check(t, "extractor vs reference", got, want)
		}
		if len(got.out) > len(stream) {
			t.Errorf("wrote %d bytes from a %d-byte stream", len(got.out), len(stream))
		}
		if m := ourEND.FindString(got.out); m != "" {
			t.Errorf("wrote our END marker %q: in %q", m, got.out)
		}
		// The command may print our START itself (output is output), but
		// the START that began the call is never written.
		start := []byte(markers.Start(ourID))
		if bytes.Count([]byte(got.out), start) > max(0, bytes.Count(stream, start)-1) {
			t.Errorf("wrote the START marker that began the call: %q from %q", got.out, stream)
		}
		if has := bytes.Contains(stream, start); got.started != has {
			t.Errorf("Started() = %v, want %v (is our START in %q)", got.started, has, stream)
		}
		if got.done && !ourEND.Match(stream) {
			t.Errorf("Done() for a stream without our END: %q", stream)
		}
	})
}
