package charset

import (
	"testing"
	"unicode/utf8"
)

func TestDecodeIsBijective(t *testing.T) {
	seen := map[string]byte{}
	for b := 0; b < 256; b++ {
		s := Decode(string([]byte{byte(b)}))
		if !utf8.ValidString(s) || utf8.RuneCountInString(s) != 1 || s == "\uFFFD" {
			t.Errorf("Decode(%#x) = %q", b, s)
		}
		if o, dup := seen[s]; dup {
			t.Errorf("Decode(%#x) = Decode(%#x) = %q", b, o, s)
		}
		seen[s] = byte(b)
		if back := Encode(s); back != string([]byte{byte(b)}) {
			t.Errorf("Encode(Decode(%#x)) = %q", b, back)
		}
	}
}

func TestKnownValues(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Z\xfcrich", "Zürich"}, {"\xcele-de-France", "Île-de-France"}, {"\x80 \x9f \x81", "€ Ÿ \u0081"}, {"abc", "abc"},
	} {
		if got := Decode(tc.in); got != tc.want {
			t.Errorf("Decode(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := ToUTF8(tc.in); got != tc.want {
			t.Errorf("ToUTF8(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := ToUTF8("Zürich"); got != "Zürich" {
		t.Errorf("ToUTF8 of UTF-8 = %q", got)
	}
	if got := Encode("a≥b\xff"); got != "a?b?" {
		t.Errorf("Encode of unencodable = %q", got)
	}
}

func FuzzRoundTrip(f *testing.F) {
	f.Add("Z\xfcrich")
	f.Add("\x81\x8d\x8f\x90\x9d")
	f.Fuzz(func(t *testing.T, s string) {
		d := Decode(s)
		if !utf8.ValidString(d) {
			t.Fatalf("Decode(%q) not UTF-8", s)
		}
		if Encode(d) != s {
			t.Fatalf("round trip of %q gave %q", s, Encode(d))
		}
	})
}

func TestEqualFoldAndUpperKey(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"Region", "REGION", true}, {"région", "RÉGION", true}, {"r\xe9gion", "R\xc9GION", true},
		{"r\xe9gion", "r\xe8gion", false}, {"r\xe9gion", "région", false}, {"Gr\xf6\xdfe", "GR\xd6\xdfE", true},
	} {
		if got := EqualFold(tc.a, tc.b); got != tc.want {
			t.Errorf("EqualFold(%q, %q) = %v", tc.a, tc.b, got)
		}
		if got := UpperKey(tc.a) == UpperKey(tc.b); got != tc.want {
			t.Errorf("UpperKey(%q) == UpperKey(%q) is %v", tc.a, tc.b, got)
		}
	}
}
