package main

// helpDescription is the description for kong: the whole text when the
// command line asks for help, else none. kong runs every help text
// through a regular expression at each parse (for ${variables}), which
// for the long description costs ~0.3 MB of heap on every call, a few
// percent of a call's peak memory.
func helpDescription(args []string) string {
	for _, a := range args {
		switch a {
		case "--":
			return ""
		case "-h", "--help":
			return description
		}
	}
	return ""
}
