package cleantext

// Pending returns, cleaned, the partial line shown so far (no '\n' yet),
// leaving it in the Writer: what a line-by-line reader sees of the line
// being written (a prompt, a banner without its newline yet).
func (c *Writer) Pending() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return string(c.line.appendText(nil))
}
