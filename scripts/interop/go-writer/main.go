// Command go-writer writes Parquet files with parquet-go for the read interop test
// (crates/parquetry/tests/read_interop.rs), which reads them with parquetry and compares the
// values with pyarrow's read of the same files.
//
// Every file holds the same 5000 rows (a fixed seed): int32 over the whole range, int64,
// float and double (NaN, infinities, -0.0), bool, string (a small vocabulary and unique
// values), binary, date, timestamp (microseconds, UTC) and decimals on INT32, INT64 and
// FIXED_LEN_BYTE_ARRAY; every column optional with about 10% nulls and rows 1200..1699 null
// in every column. Row groups of 1500 rows and a 2 KiB page buffer give many small pages.
// The settings vary the encodings (dictionary, DELTA_BINARY_PACKED with
// DELTA_LENGTH_BYTE_ARRAY or DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT), the codec and the data page
// version (2 is parquet-go's default).
//
// Usage: go-writer OUT_DIR. Prints one JSON line per file: {"settings": ..., "parquet": path}.
// With -nested, writes nested files instead (nested.go).
package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding"
)

const rows = 5000

// A variant of the writer's settings.
type variant struct {
	name     string
	settings string
	codec    compress.Codec
	version  int
	// Default encodings by physical type (columns of other types keep PLAIN).
	encodings map[parquet.Kind]encoding.Encoding
}

func variants() []variant {
	dict := map[parquet.Kind]encoding.Encoding{}
	for _, k := range []parquet.Kind{parquet.Int32, parquet.Int64, parquet.Float, parquet.Double,
		parquet.ByteArray, parquet.FixedLenByteArray} {
		dict[k] = &parquet.RLEDictionary
	}
	delta := func(bytes encoding.Encoding) map[parquet.Kind]encoding.Encoding {
		return map[parquet.Kind]encoding.Encoding{
			parquet.Int32: &parquet.DeltaBinaryPacked, parquet.Int64: &parquet.DeltaBinaryPacked,
			parquet.ByteArray: bytes,
		}
	}
	split := map[parquet.Kind]encoding.Encoding{
		parquet.Float: &parquet.ByteStreamSplit, parquet.Double: &parquet.ByteStreamSplit,
	}
	return []variant{
		{"dict-snappy-v2", "data page v2, RLE_DICTIONARY, snappy",
			&parquet.Snappy, 2, dict},
		{"delta-zstd-v2", "data page v2, DELTA_BINARY_PACKED + DELTA_LENGTH_BYTE_ARRAY, zstd",
			&parquet.Zstd, 2, delta(&parquet.DeltaLengthByteArray)},
		{"deltaba-gzip-v2", "data page v2, DELTA_BINARY_PACKED + DELTA_BYTE_ARRAY, gzip",
			&parquet.Gzip, 2, delta(&parquet.DeltaByteArray)},
		{"plain-uncompressed-v2", "data page v2, PLAIN + BYTE_STREAM_SPLIT floats, uncompressed",
			&parquet.Uncompressed, 2, split},
		{"delta-lz4-v1", "data page v1, DELTA_BINARY_PACKED + DELTA_BYTE_ARRAY, lz4_raw",
			&parquet.Lz4Raw, 1, delta(&parquet.DeltaByteArray)},
		{"dict-brotli-v1", "data page v1, RLE_DICTIONARY, brotli",
			&parquet.Brotli, 1, dict},
	}
}

// The schema; parquet.Group orders columns by name, so rows are built by column index.
func schema() *parquet.Schema {
	opt := parquet.Optional
	return parquet.NewSchema("interop", parquet.Group{
		"i32":   opt(parquet.Leaf(parquet.Int32Type)),
		"i64":   opt(parquet.Leaf(parquet.Int64Type)),
		"f32":   opt(parquet.Leaf(parquet.FloatType)),
		"f64":   opt(parquet.Leaf(parquet.DoubleType)),
		"flag":  opt(parquet.Leaf(parquet.BooleanType)),
		"s":     opt(parquet.String()),
		"bin":   opt(parquet.Leaf(parquet.ByteArrayType)),
		"d":     opt(parquet.Date()),
		"ts":    opt(parquet.Timestamp(parquet.Microsecond)),
		"dec9":  opt(parquet.Decimal(2, 9, parquet.Int32Type)),
		"dec18": opt(parquet.Decimal(4, 18, parquet.Int64Type)),
		"dec30": opt(parquet.Decimal(5, 30, parquet.FixedLenByteArrayType(13))),
	})
}

// bigEndian is v as a width-byte two's complement big-endian integer (a FIXED_LEN_BYTE_ARRAY
// decimal).
func bigEndian(v *big.Int, width int) []byte {
	out := make([]byte, width)
	m := new(big.Int).Set(v)
	if m.Sign() < 0 {
		m.Add(m, new(big.Int).Lsh(big.NewInt(1), uint(8*width)))
	}
	b := m.Bytes()
	copy(out[width-len(b):], b)
	return out
}

// makeRows builds the table: column values by name, nil for a null.
func makeRows(s *parquet.Schema) []parquet.Row {
	rng := rand.New(rand.NewPCG(20240615, 7))
	vocab := []string{"", "a", "bc", "日本語", "ünïcödé", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}
	for i := 0; i < 30; i++ {
		vocab = append(vocab, fmt.Sprintf("word%d", i))
	}
	index := map[string]int{}
	for i, col := range s.Columns() {
		index[col[0]] = i
	}
	out := make([]parquet.Row, rows)
	i64 := int64(0)
	for r := 0; r < rows; r++ {
		vals := map[string]parquet.Value{}
		vals["i32"] = parquet.Int32Value(int32(rng.Uint32()))
		i64 += rng.Int64N(2000) - 1000
		if rng.IntN(100) == 0 {
			i64 += 1 << 62
		}
		v64 := i64
		if r%997 == 0 {
			v64 = math.MinInt64
		}
		vals["i64"] = parquet.Int64Value(v64)
		f := rng.NormFloat64() * 1e6
		switch {
		case r%101 == 0:
			f = math.NaN()
		case r%211 == 5:
			f = math.Inf(1)
		case r%223 == 7:
			f = math.Inf(-1)
		case r%227 == 11:
			f = math.Copysign(0, -1)
		}
		vals["f32"] = parquet.FloatValue(float32(f))
		vals["f64"] = parquet.DoubleValue(f * 1.000001)
		vals["flag"] = parquet.BooleanValue(rng.Float64() < 0.3)
		str := vocab[rng.IntN(len(vocab))]
		if r >= rows/2 && r%3 == 0 {
			str = fmt.Sprintf("unique-%06d-%x", r, rng.Uint64()>>24)
		}
		vals["s"] = parquet.ByteArrayValue([]byte(str))
		blob := make([]byte, rng.IntN(24))
		for j := range blob {
			blob[j] = byte(rng.Uint32())
		}
		vals["bin"] = parquet.ByteArrayValue(blob)
		vals["d"] = parquet.Int32Value(int32(rng.IntN(100000) - 50000))
		vals["ts"] = parquet.Int64Value(rng.Int64N(6e15) - 2e15)
		vals["dec9"] = parquet.Int32Value(int32(rng.IntN(2*999999999+1) - 999999999))
		vals["dec18"] = parquet.Int64Value(rng.Int64N(2*999999999999999999+1) - 999999999999999999)
		u := new(big.Int).Mul(big.NewInt(rng.Int64N(2*999999999999999999+1)-999999999999999999), big.NewInt(1e12))
		vals["dec30"] = parquet.FixedLenByteArrayValue(bigEndian(u.Add(u, big.NewInt(int64(r))), 13))

		row := make(parquet.Row, len(index))
		for name, c := range index {
			if rng.IntN(10) == 0 || (r >= 1200 && r < 1700) {
				row[c] = parquet.NullValue().Level(0, 0, c)
			} else {
				row[c] = vals[name].Level(0, 1, c)
			}
		}
		out[r] = row
	}
	return out
}

func write(path string, s *parquet.Schema, v variant, data []parquet.Row) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	options := []parquet.WriterOption{s, parquet.Compression(v.codec), parquet.DataPageVersion(v.version),
		parquet.PageBufferSize(2048), parquet.MaxRowsPerRowGroup(1500)}
	for kind, enc := range v.encodings {
		options = append(options, parquet.DefaultEncodingFor(kind, enc))
	}
	w := parquet.NewWriter(f, options...)
	if _, err := w.WriteRows(data); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return f.Close()
}

func main() {
	if len(os.Args) == 3 && os.Args[1] == "-nested" {
		if err := os.MkdirAll(os.Args[2], 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if err := writeNested(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go-writer OUT_DIR | go-writer -nested OUT_DIR")
		os.Exit(2)
	}
	dir := os.Args[1]
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	s := schema()
	data := makeRows(s)
	for _, v := range variants() {
		path := filepath.Join(dir, "parquet-go-"+v.name+".parquet")
		if err := write(path, s, v, data); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", v.name, err)
			os.Exit(1)
		}
		line, _ := json.Marshal(map[string]string{"settings": v.settings, "parquet": path})
		fmt.Println(string(line))
	}
}
