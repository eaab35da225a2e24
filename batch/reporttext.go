package batch

import (
	"reflect"

	"github.com/sdcengine/argus/argusio/charset"
)

// utf8Texts returns a copy of v in which every string that is not valid
// UTF-8 is read as Windows-1252 (see package charset). JSON must be UTF-8,
// and encoding/json would replace the bytes of a Latin-1 code or name by
// U+FFFD; the job itself keeps the bytes of its files.
func utf8Texts[T any](v T) T {
	out := utf8Value(reflect.ValueOf(&v).Elem())
	return out.Interface().(T)
}

func utf8Value(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.String:
		s := charset.ToUTF8(v.String())
		if s == v.String() {
			return v
		}
		out := reflect.New(v.Type()).Elem()
		out.SetString(s)
		return out
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type().Elem())
		out.Elem().Set(utf8Value(v.Elem()))
		return out
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			out.Index(i).Set(utf8Value(v.Index(i)))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			out.SetMapIndex(utf8Value(it.Key()), utf8Value(it.Value()))
		}
		return out
	case reflect.Struct:
		out := reflect.New(v.Type()).Elem()
		out.Set(v)
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				out.Field(i).Set(utf8Value(v.Field(i)))
			}
		}
		return out
	}
	return v
}
