// Package output writes the files of τ-Argus's <WRITETABLE> command
// (docs/formats.md §3.4, §11): output types 1 (CSV table layout), 2
// (pivot CSV), 3 (code-value), 4 (SBS), 5 (intermediate .tab with its .rda
// and, for recoded hierarchies, .hrc companions) and 7 (cell-key method file
// with its .rda), plus the HTML report written next to every output. Type 6,
// the JJ format, is written by package argusio/jj.
//
// The contract is byte compatibility with τ-Argus 4.2: the same layout,
// code padding (codes as stored in the [table.Table]), quoting, number
// formatting and line ends. The C++-written types 1–4 format numbers like
// printf("%.*f") with the response decimals; the Java-written types 5 and 7
// like java.text.DecimalFormat (package numfmt explains where the two
// differ), with a configurable decimal separator because τ-Argus uses the
// Windows locale there. Lines end in CRLF unless [Options.Newline] says
// otherwise.
//
// What a writer prints of a cell — which value (the cell value, or the
// rounded, adjusted or perturbed one), hidden as "x", empty as "-", the
// interval of interval protection — and how it is rounded and formatted is
// decided by one function, [Publish], which every writer (and the JJ writer)
// calls and the host's audits call too, so that the numbers audited are
// the numbers published ([Number] carries the printed text and the number
// it stands for).
//
// Writers write to an io.Writer; the caller names the files (see
// [MetadataName], [RecodedHRCName], [ReportName]) and makes them appear
// atomically. [Options.Set] is the one reader of the option letters of
// <WRITETABLE>, with τ-Argus's messages (package arb applies it to the batch
// line; [ParseOptions] starts from τ-Argus's defaults); [CheckAllowed] rejects the output types
// τ-Argus does not allow after a protection method. Every writer first
// validates the table ([table.Table.Validate]) and never panics.
package output
