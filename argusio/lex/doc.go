// Package lex implements the line tokenizer shared by all τ-Argus text
// formats that are read line by line: batch files (.arb), metadata (.rda),
// tabular data (.tab), a-priori files (.hst) and recode files (.grc).
//
// The contract is bug-for-bug compatibility with τ-Argus's own Tokenizer
// (argus.utils.Tokenizer, identical to tauargus.utils.Tokenizer), as
// follows:
//
//   - Input is 8-bit text. Bytes are passed through unchanged; every
//     "character" below is one byte (τ-Argus decodes with windows-1252, one
//     byte per character). A leading UTF-8 byte order mark is skipped (a
//     deviation: τ-Argus reads it as part of the first line).
//   - Physical lines end at LF, CRLF or a lone CR, so "a\r\r\n" is the line
//     "a" followed by an empty line. The last line needs no terminator.
//   - [Scanner.NextLine] replaces every TAB by a blank, strips surrounding
//     white space and skips empty lines and lines starting with "//". The line
//     counter counts every physical line, skipped or not.
//   - [Scanner.NextToken], [Scanner.NextField], [Scanner.NextChar] and
//     [Scanner.TestNextChar] consume the current line exactly like their Java
//     counterparts, including the upper-casing of tokens that start with '<'
//     (which makes keywords case-insensitive) and the two different sets of
//     white space τ-Argus trims (see [IsJavaWhitespace] and [Trim]).
//
// [Tail] reproduces the private helpers batch.java uses inside argument lists
// (nextToken(tail) stops at the earliest of "( , ) |"; nextChar(tail) does not
// trim), which is why quotes do not protect those four characters there.
//
// Deviations, all in places where Java crashes with a runtime exception:
// calling a method on an empty line or after the end of input behaves as if
// the line were empty, and [Tail.Token] strips quotes only from tokens of at
// least two bytes. Upper-casing of '<' tokens is ASCII only.
//
// The package also holds what every reader of these formats shares:
// errors that match a sentinel ([Reason]) and Java-compatible number parsing
// ([ParseInt], [ParseDouble], [ToDouble], [ToInteger]). Its errors are
// *poserr.Error values (package argusio/poserr).
package lex
