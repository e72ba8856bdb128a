package kernels

import "strings"

// token is one C token: an identifier or number, a string literal (with its
// quotes), or one punctuation character ("::" is one token).
type token struct {
	text string
	line int
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIdentChar(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

// tokenize splits C source into tokens, dropping comments and preprocessor
// lines (with their continuation lines). It never fails: an unterminated
// comment or literal ends at the end of the source.
func tokenize(src string) []token {
	var toks []token
	line := 1
	atLineStart := true
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			line++
			atLineStart = true
			i++
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
			continue
		case c == '#' && atLineStart:
			// A preprocessor line, up to an unescaped newline.
			for i < len(src) && src[i] != '\n' {
				if src[i] == '\\' && i+1 < len(src) && src[i+1] == '\n' {
					line++
					i += 2
					continue
				}
				if strings.HasPrefix(src[i:], "/*") {
					end := strings.Index(src[i+2:], "*/")
					if end < 0 {
						return toks
					}
					line += strings.Count(src[i:i+2+end], "\n")
					i += end + 4
					continue
				}
				i++
			}
			continue
		case strings.HasPrefix(src[i:], "//"):
			for i < len(src) && src[i] != '\n' {
				i++
			}
			continue
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return toks
			}
			line += strings.Count(src[i:i+2+end], "\n")
			i += end + 4
			continue
		}
		atLineStart = false
		switch {
		case isIdentChar(c):
			j := i
			for j < len(src) && (isIdentChar(src[j]) || src[j] == '.' && j > i && src[i] >= '0' && src[i] <= '9') {
				j++
			}
			toks = append(toks, token{src[i:j], line})
			i = j
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(src) && src[j] != c && src[j] != '\n' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			if j > len(src) {
				j = len(src)
			}
			end := min(j+1, len(src))
			toks = append(toks, token{src[i:end], line})
			i = end
		case c == ':' && i+1 < len(src) && src[i+1] == ':':
			toks = append(toks, token{"::", line})
			i += 2
		default:
			toks = append(toks, token{src[i : i+1], line})
			i++
		}
	}
	return toks
}
