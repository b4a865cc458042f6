package cleantext

import "slices"

// A cell is one rune's UTF-8 bytes, or one invalid byte, packed
// little-endian; 0 (NUL is never printed) is a blank: skipped or erased.
type cell uint32

const blank cell = 0

func cellOf(b []byte) cell {
	var c cell
	for i, x := range b {
		c |= cell(x) << (8 * i)
	}
	return c
}

func (c cell) appendTo(dst []byte) []byte {
	for ; c != 0; c >>= 8 {
		dst = append(dst, byte(c))
	}
	return dst
}

// farthestColumn bounds a cursor movement past the text, as a margin
// would: else "\x1b[999999999C" and one character make a billion blanks.
const farthestColumn = 1024

const keptCapacity = 1 << 16 // the most cells kept from line to line

// line is the screen line the cursor is on, as the terminal shows it.
type line struct {
	cells []cell // up to the last cell written; trailing blanks are no text
	col   int    // the cursor, 0-based; may lie past the end of cells
}

func (l *line) isEmpty() bool { return len(l.cells) == 0 && l.col == 0 }

func (l *line) reset() {
	if cap(l.cells) > keptCapacity {
		l.cells = nil
	}
	l.cells = l.cells[:0]
	l.col = 0
}

func (l *line) put(c cell) {
	for len(l.cells) <= l.col {
		l.cells = append(l.cells, blank)
	}
	l.cells[l.col] = c
	l.col++
}

func (l *line) putASCII(run []byte) {
	if l.col == len(l.cells) { // the usual case
		for _, b := range run {
			l.cells = append(l.cells, cell(b))
		}
		l.col += len(run)
		return
	}
	for _, b := range run {
		l.put(cell(b))
	}
}

func (l *line) moveTo(col int) { l.col = max(0, min(col, max(len(l.cells), farthestColumn))) }

// erase is EL's (and ED's) erasing of the line: 0 to its end, 1 to its start (the cursor's cell
// too), 2 all of it.
func (l *line) erase(how int) {
	switch how {
	case 0:
		l.cells = l.cells[:min(l.col, len(l.cells))]
	case 1:
		l.blankOut(0, l.col+1)
	case 2:
		l.cells = l.cells[:0]
	}
}

func (l *line) deleteCells(n int) {
	if l.col < len(l.cells) {
		l.cells = slices.Delete(l.cells, l.col, min(len(l.cells), l.col+n))
	}
}

func (l *line) insertBlanks(n int) {
	if l.col < len(l.cells) {
		l.cells = slices.Insert(l.cells, l.col, make([]cell, min(n, farthestColumn))...)
	}
}

func (l *line) blankOut(from, to int) {
	if from < len(l.cells) {
		clear(l.cells[from:min(to, len(l.cells))])
	}
}

// appendText appends what the line shows, trailing blanks (not spaces) left out.
func (l *line) appendText(dst []byte) []byte {
	end := len(l.cells)
	for end > 0 && l.cells[end-1] == blank {
		end--
	}
	return appendCells(dst, l.cells[:end])
}

// appendUpTo appends what the line shows up to its last character that
// is not a space, or column col if farther.
func (l *line) appendUpTo(dst []byte, col int) []byte {
	end := len(l.cells)
	for end > col && (l.cells[end-1] == blank || l.cells[end-1] == ' ') {
		end--
	}
	dst = appendCells(dst, l.cells[:end])
	for range col - end {
		dst = append(dst, ' ')
	}
	return dst
}

func appendCells(dst []byte, cells []cell) []byte {
	for _, c := range cells {
		if c == blank {
			c = ' '
		}
		dst = c.appendTo(dst)
	}
	return dst
}
