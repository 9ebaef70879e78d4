// Command readall reads every Parquet file in a directory with parquet-go (column chunk by
// column chunk, page by page) and prints one JSON line per file: its row count and, per
// column, the number of values and nulls, page counts, and two SHA-256 digests of the values
// in a canonical physical form that scripts/interop/compare.py computes the same way from
// pyarrow's read of the file:
//
//   - validity: one byte per value, 1 when present, 0 when null;
//   - values: the present values, concatenated: BOOLEAN one byte 0/1; INT32, INT64, FLOAT,
//     DOUBLE little-endian (floats as their bits); BYTE_ARRAY a 4-byte little-endian length
//     then the bytes; FIXED_LEN_BYTE_ARRAY the bytes.
//
// Usage: readall DIR
package main

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/parquet-go/parquet-go"
)

type column struct {
	Name             string `json:"name"`
	Physical         string `json:"physical"`
	Values           int64  `json:"values"`
	Nulls            int64  `json:"nulls"`
	Pages            int    `json:"pages"`
	OffsetIndexPages int    `json:"offset_index_pages"` // -1: none
	Validity         string `json:"validity"`
	Digest           string `json:"digest"`
	Error            string `json:"error,omitempty"`
}

type result struct {
	File    string   `json:"file"`
	Rows    int64    `json:"rows"`
	Error   string   `json:"error,omitempty"`
	Columns []column `json:"columns,omitempty"`
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: readall DIR")
		os.Exit(2)
	}
	paths, err := filepath.Glob(filepath.Join(os.Args[1], "*.parquet"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	sort.Strings(paths)
	out := json.NewEncoder(os.Stdout)
	for _, p := range paths {
		r := readFile(p)
		if err := out.Encode(r); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
}

func readFile(path string) (r result) {
	r.File = filepath.Base(path)
	defer func() {
		if p := recover(); p != nil {
			r.Error = fmt.Sprintf("panic: %v", p)
		}
	}()
	f, err := os.Open(path)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		r.Error = err.Error()
		return r
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		r.Error = "open: " + err.Error()
		return r
	}
	r.Rows = pf.NumRows()
	leaves := pf.Schema().Columns()
	r.Columns = make([]column, len(leaves))
	validity := make([]hash.Hash, len(leaves))
	values := make([]hash.Hash, len(leaves))
	for i, path := range leaves {
		r.Columns[i].Name = strings.Join(path, ".")
		validity[i] = sha256.New()
		values[i] = sha256.New()
	}
	var rows int64
	for g, rg := range pf.RowGroups() {
		rows += rg.NumRows()
		for i, cc := range rg.ColumnChunks() {
			c := &r.Columns[i]
			if c.Error != "" {
				continue
			}
			c.Physical = cc.Type().Kind().String()
			if oi, err := cc.OffsetIndex(); err == nil && c.OffsetIndexPages >= 0 {
				c.OffsetIndexPages += oi.NumPages()
			} else {
				c.OffsetIndexPages = -1 // no offset index (or it failed to parse)
			}
			if err := readChunk(cc, c, validity[i], values[i]); err != nil {
				c.Error = fmt.Sprintf("row group %d: %v", g, err)
			}
		}
	}
	if rows != r.Rows {
		r.Error = fmt.Sprintf("row groups hold %d rows, the footer says %d", rows, r.Rows)
	}
	for i := range r.Columns {
		r.Columns[i].Validity = hex.EncodeToString(validity[i].Sum(nil))
		r.Columns[i].Digest = hex.EncodeToString(values[i].Sum(nil))
	}
	return r
}

// readChunk reads every page of one column chunk into the column's digests.
func readChunk(cc parquet.ColumnChunk, c *column, validity, values hash.Hash) error {
	pages := cc.Pages()
	defer pages.Close()
	buf := make([]parquet.Value, 1024)
	var scratch [8]byte
	for {
		page, err := pages.ReadPage()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("page %d: %w", c.Pages, err)
		}
		c.Pages++
		var n int64
		reader := page.Values()
		for {
			k, err := reader.ReadValues(buf)
			for _, v := range buf[:k] {
				n++
				if v.IsNull() {
					c.Nulls++
					validity.Write([]byte{0})
					continue
				}
				validity.Write([]byte{1})
				switch v.Kind() {
				case parquet.Boolean:
					if v.Boolean() {
						values.Write([]byte{1})
					} else {
						values.Write([]byte{0})
					}
				case parquet.Int32:
					binary.LittleEndian.PutUint32(scratch[:4], uint32(v.Int32()))
					values.Write(scratch[:4])
				case parquet.Int64:
					binary.LittleEndian.PutUint64(scratch[:8], uint64(v.Int64()))
					values.Write(scratch[:8])
				case parquet.Float:
					binary.LittleEndian.PutUint32(scratch[:4], math.Float32bits(v.Float()))
					values.Write(scratch[:4])
				case parquet.Double:
					binary.LittleEndian.PutUint64(scratch[:8], math.Float64bits(v.Double()))
					values.Write(scratch[:8])
				case parquet.ByteArray:
					b := v.ByteArray()
					binary.LittleEndian.PutUint32(scratch[:4], uint32(len(b)))
					values.Write(scratch[:4])
					values.Write(b)
				case parquet.FixedLenByteArray:
					values.Write(v.ByteArray())
				default:
					parquet.Release(page)
					return fmt.Errorf("page %d: unexpected value kind %v", c.Pages-1, v.Kind())
				}
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				parquet.Release(page)
				return fmt.Errorf("page %d: values: %w", c.Pages-1, err)
			}
		}
		if n != page.NumValues() {
			parquet.Release(page)
			return fmt.Errorf("page %d: read %d values, the page says %d", c.Pages-1, n, page.NumValues())
		}
		c.Values += n
		parquet.Release(page)
	}
}
