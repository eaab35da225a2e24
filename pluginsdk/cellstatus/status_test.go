package cellstatus

import "testing"

func TestStatus(t *testing.T) {
	tests := []struct {
		s                              Status
		name                           string
		cat                            Category
		inter                          byte
		jj                             byte
		jjOK                           bool
		primary, secondary, empty, can bool
	}{
		{Unknown, "Unknown", CategoryUnknown, 0, 0, false, false, false, false, false},
		{Safe, "Safe", CategorySafe, 'S', 's', true, false, false, false, true},
		{SafeManual, "Safe (manual)", CategorySafe, 'S', 's', true, false, false, false, true},
		{UnsafeRule, "Unsafe", CategoryPrimary, 'U', 'u', true, true, false, false, false},
		{UnsafeRequest, "Unsafe (request)", CategoryPrimary, 'U', 'u', true, true, false, false, false},
		{UnsafeFreq, "Unsafe (freq)", CategoryPrimary, 'U', 'u', true, true, false, false, false},
		{UnsafeZero, "Unsafe (zero cell)", CategoryPrimary, 'U', 'u', true, true, false, false, false},
		{UnsafeSingleton, "Unsafe (singleton)", CategoryPrimary, 'U', 'u', true, true, false, false, false},
		{UnsafeSingletonManual, "Unsafe (singleton) (manual)", CategoryPrimary, 'U', 0, false, true, false, false, false},
		{UnsafeManual, "Unsafe (manual)", CategoryPrimary, 'U', 'u', true, true, false, false, false},
		{Protected, "Protected", CategoryProtected, 'P', 'z', true, false, false, false, false},
		{Secondary, "Secondary", CategorySecondary, 'M', 'm', true, false, true, false, false},
		{SecondaryManual, "Secondary (from manual)", CategorySecondary, 'M', 'm', true, false, true, false, false},
		{EmptyNonStructural, "Empty (non-struct.)", CategorySafe, 'E', 's', true, false, false, true, true},
		{Empty, "Empty", CategoryProtected, 'E', 'z', true, false, false, true, false},
		{Status(15), "Status(15)", CategoryUnknown, 0, 0, false, false, false, false, false},
	}
	for _, tt := range tests {
		if got := tt.s.String(); got != tt.name {
			t.Errorf("%d.String() = %q, want %q", tt.s, got, tt.name)
		}
		if got := tt.s.Category(); got != tt.cat {
			t.Errorf("%d.Category() = %v, want %v", tt.s, got, tt.cat)
		}
		if got := tt.s.IntermediateLetter(); got != tt.inter {
			t.Errorf("%d.IntermediateLetter() = %q, want %q", tt.s, got, tt.inter)
		}
		if got, ok := tt.s.JJLetter(); got != tt.jj || ok != tt.jjOK {
			t.Errorf("%d.JJLetter() = %q, %v, want %q, %v", tt.s, got, ok, tt.jj, tt.jjOK)
		}
		if tt.s.IsPrimary() != tt.primary || tt.s.IsSecondary() != tt.secondary ||
			tt.s.IsEmpty() != tt.empty || tt.s.CanBeSecondary() != tt.can {
			t.Errorf("%d: category helpers wrong", tt.s)
		}
		if tt.s.IsSuppressed() != (tt.primary || tt.secondary) {
			t.Errorf("%d.IsSuppressed() wrong", tt.s)
		}
		if tt.s.IsSafe() != (tt.cat == CategorySafe || tt.cat == CategoryProtected) {
			t.Errorf("%d.IsSafe() wrong", tt.s)
		}
		if tt.s.Valid() != (tt.s >= 1 && tt.s <= 14) {
			t.Errorf("%d.Valid() wrong", tt.s)
		}
	}
}

func TestToSecondary(t *testing.T) {
	for s := Unknown; s <= Max+1; s++ {
		got, ok := s.ToSecondary()
		want, wantOK := s, false
		switch s {
		case Safe, EmptyNonStructural:
			want, wantOK = Secondary, true
		case SafeManual:
			want, wantOK = SecondaryManual, true
		}
		if got != want || ok != wantOK {
			t.Errorf("%v.ToSecondary() = %v, %v; want %v, %v", s, got, ok, want, wantOK)
		}
	}
}

func TestSBSLetter(t *testing.T) {
	tests := []struct {
		s              Status
		pRule, several bool
		want           string
	}{
		{Safe, false, false, "V"},
		{SafeManual, true, true, "V"},
		{Protected, false, false, "V"},
		{EmptyNonStructural, false, false, "V"},
		{UnsafeFreq, true, true, "A"},
		{UnsafeRule, false, false, "B"},
		{UnsafeRule, false, true, "C"},
		{UnsafeRule, true, false, "F"},
		{UnsafeRule, true, true, "F"},
		{UnsafeRequest, true, true, "B"},
		{UnsafeZero, false, false, "B"},
		{UnsafeSingleton, false, false, "B"},
		{UnsafeManual, false, true, "B"},
		{UnsafeSingletonManual, false, false, ""},
		{Secondary, false, false, "D"},
		{SecondaryManual, false, false, "D"},
		{Empty, false, false, "-"},
		{Unknown, false, false, ""},
	}
	for _, tt := range tests {
		if got := tt.s.SBSLetter(tt.pRule, tt.several); got != tt.want {
			t.Errorf("%v.SBSLetter(%v, %v) = %q, want %q", tt.s, tt.pRule, tt.several, got, tt.want)
		}
	}
}

// TestPhrase pins the SDK's lower-case texts, which its messages print.
func TestPhrase(t *testing.T) {
	want := []string{
		"unknown", "safe", "safe (manual)", "unsafe (rule)", "unsafe (request)",
		"unsafe (frequency)", "unsafe (zero)", "unsafe (singleton)",
		"unsafe (singleton, manual)", "unsafe (manual)", "protected", "secondary",
		"secondary (manual)", "empty (non-structural)", "empty", "status(15)",
	}
	for s := Unknown; s <= Max+1; s++ {
		if got := s.Phrase(); got != want[s] {
			t.Errorf("%d.Phrase() = %q, want %q", s, got, want[s])
		}
	}
	if got := Status(255).Phrase(); got != "status(255)" {
		t.Errorf("255.Phrase() = %q", got)
	}
}

// TestConstants pins the numbers: τ-Argus's outputs and the wire contract
// carry them, so they never change.
func TestConstants(t *testing.T) {
	all := []Status{Unknown, Safe, SafeManual, UnsafeRule, UnsafeRequest, UnsafeFreq,
		UnsafeZero, UnsafeSingleton, UnsafeSingletonManual, UnsafeManual, Protected,
		Secondary, SecondaryManual, EmptyNonStructural, Empty}
	for n, s := range all {
		if int(s) != n {
			t.Errorf("%v = %d, want %d", s, s, n)
		}
	}
	if Max != all[len(all)-1] {
		t.Errorf("Max = %d", Max)
	}
}

func TestIsSingleton(t *testing.T) {
	for s := Unknown; s <= Max+1; s++ {
		if got, want := s.IsSingleton(), s == 7 || s == 8; got != want {
			t.Errorf("Status(%d).IsSingleton() = %v", s, got)
		}
	}
}
