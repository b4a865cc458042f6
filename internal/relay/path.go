package relay

// SocketPath is the relay socket this client is connected to. Files of
// the session kept beside it (ptybridge --confirm's) belong to that relay,
// whichever runtime directory the caller would use itself.
func (rc *Client) SocketPath() string { return rc.conn.Name() }
