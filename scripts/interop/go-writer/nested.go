// Nested files for crates/parquetry/tests/read_nested.rs (`go-writer -nested OUT_DIR`):
// parquet-go's own layouts of Go structs, which differ from pyarrow's: a slice without a
// `list` tag is a bare repeated field (the legacy two-level list, no LIST annotation), a
// pointer to a struct is an optional group, a Go map is a MAP. The reference is pyarrow's
// reading of each file.
//
// 1,500 rows from a fixed seed: empty slices, nil pointers and empty maps throughout, and a
// long slice now and then, which small pages split over many pages.
package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
)

type nestedItem struct {
	X *int32  `parquet:"x,optional"`
	Y *string `parquet:"y,optional"`
}

type nestedInner struct {
	P  int64   `parquet:"p"`
	Qs []int32 `parquet:"qs"`
}

type nestedRow struct {
	ID     int64            `parquet:"id"`
	Ints   []int64          `parquet:"ints"`
	Tags   []string         `parquet:"tags,list"`
	Opt    *nestedItem      `parquet:"opt,optional"`
	Items  []nestedItem     `parquet:"items"`
	ItemsL []nestedItem     `parquet:"items_l,list"`
	Inner  []nestedInner    `parquet:"inner"`
	M      map[string]int64 `parquet:"m"`
}

func nestedRows() []nestedRow {
	rng := rand.New(rand.NewPCG(20251123, 9))
	words := []string{"", "a", "bc", "日本語", "ünïcödé"}
	for i := 0; i < 20; i++ {
		words = append(words, fmt.Sprintf("tag%d", i))
	}
	count := func(r int) int {
		if r%311 == 7 {
			return 200 + rng.IntN(100)
		}
		return rng.IntN(6)
	}
	item := func() nestedItem {
		var it nestedItem
		if rng.IntN(5) != 0 {
			x := int32(rng.Uint32())
			it.X = &x
		}
		if rng.IntN(5) != 0 {
			y := words[rng.IntN(len(words))]
			it.Y = &y
		}
		return it
	}
	out := make([]nestedRow, 1500)
	for r := range out {
		row := nestedRow{ID: int64(r)}
		for i := count(r); i > 0; i-- {
			row.Ints = append(row.Ints, rng.Int64())
		}
		for i := count(r); i > 0; i-- {
			row.Tags = append(row.Tags, words[rng.IntN(len(words))])
		}
		if rng.IntN(4) != 0 {
			it := item()
			row.Opt = &it
		}
		for i := count(r); i > 0; i-- {
			row.Items = append(row.Items, item())
		}
		for i := count(r); i > 0; i-- {
			row.ItemsL = append(row.ItemsL, item())
		}
		for i := rng.IntN(3); i > 0; i-- {
			in := nestedInner{P: rng.Int64N(1000)}
			for j := count(r); j > 0; j-- {
				in.Qs = append(in.Qs, int32(rng.IntN(100)))
			}
			row.Inner = append(row.Inner, in)
		}
		if n := count(r); n > 0 {
			row.M = map[string]int64{}
			for i := 0; i < n; i++ {
				row.M[fmt.Sprintf("k%d", rng.IntN(1000))] = rng.Int64N(1 << 40)
			}
		}
		out[r] = row
	}
	return out
}

// writeNested writes the nested files and prints one JSON line per file: settings, path and
// the rows as JSON (for the Python side's check of pyarrow's reading).
func writeNested(dir string) error {
	rows := nestedRows()
	values := filepath.Join(dir, "parquet-go-nested-rows.json")
	encoded, err := json.Marshal(rows)
	if err != nil {
		return err
	}
	if err := os.WriteFile(values, encoded, 0o644); err != nil {
		return err
	}
	for _, v := range []struct {
		name, settings string
		codec          compress.Codec
		version        int
	}{
		{"nested-v1-snappy", "data page v1, 1 KiB page buffer, snappy", &parquet.Snappy, 1},
		{"nested-v2-zstd", "data page v2, 1 KiB page buffer, zstd", &parquet.Zstd, 2},
	} {
		path := filepath.Join(dir, "parquet-go-"+v.name+".parquet")
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		w := parquet.NewGenericWriter[nestedRow](f, parquet.Compression(v.codec), parquet.DataPageVersion(v.version),
			parquet.PageBufferSize(1024), parquet.MaxRowsPerRowGroup(500))
		if _, err := w.Write(rows); err != nil {
			return err
		}
		if err := w.Close(); err != nil {
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		line, _ := json.Marshal(map[string]string{"settings": v.settings, "parquet": path, "rows_json": values})
		fmt.Println(string(line))
	}
	return nil
}
