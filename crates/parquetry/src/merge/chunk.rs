//! One output column chunk made from the same column of several input row groups, at the
//! page level: pages without a dictionary are copied as they are (recompressed only for a new
//! codec); dictionary-encoded pages get their indexes remapped into one unified dictionary,
//! built by hashing each input dictionary's values once; once that dictionary passes its limit,
//! later inputs' dictionary pages are turned into PLAIN pages gathered from their own
//! dictionaries, what a writer's fallback would produce. Levels are copied, never decoded
//! beyond what counting values needs.

use crate::compress::{snappy_splice, Codec, Compressor, Decompressor};
use crate::encoding::dictionary::{ByteArrayDictionary, FixedDictionary};
use crate::encoding::rle::{decode_bit_packed_msb, RleDecoder, RleEncoder};
use crate::error::{Error, Result};
use crate::format::{ColumnMetaData, Encoding, PageHeader, PageType, PhysicalType};
use crate::page::{has_parquet_816_bug, ChunkSource, PageStream, PageWriter};
use crate::read::levels::{level_bit_width, split_v1_levels, LevelData};
use crate::schema::ColumnDescriptor;

/// Counts of what happened to pages, for the merge summary.
#[derive(Debug, Default, Clone, Copy)]
pub struct PageCounts {
    /// Pages copied byte for byte.
    pub copied: u64,
    /// Dictionary-index pages whose indexes were remapped.
    pub remapped: u64,
    /// Pages decoded and re-encoded (dictionary fallback to PLAIN) or recompressed.
    pub reencoded: u64,
    /// Dictionary fallback PLAIN pages whose values are an input dictionary page's stored
    /// bytes, neither gathered nor compressed again (each dictionary value used once, in
    /// order: a column of unique keys).
    pub from_dictionary: u64,
}

/// The unified dictionary of the output chunk.
enum Unified {
    Bytes(ByteArrayDictionary),
    Fixed(FixedDictionary),
}

impl Unified {
    fn new(column: &ColumnDescriptor) -> Option<Self> {
        let width = value_width(column);
        Some(match column.physical_type {
            PhysicalType::BYTE_ARRAY => Unified::Bytes(ByteArrayDictionary::new()),
            PhysicalType::INT32 | PhysicalType::FLOAT => Unified::Fixed(FixedDictionary::new(4)),
            PhysicalType::INT64 | PhysicalType::DOUBLE => Unified::Fixed(FixedDictionary::new(8)),
            PhysicalType::FIXED_LEN_BYTE_ARRAY | PhysicalType::INT96 => {
                Unified::Bytes(ByteArrayDictionary::new_fixed(width?))
            }
            _ => return None,
        })
    }

    fn len(&self) -> usize {
        match self {
            Unified::Bytes(d) => d.len(),
            Unified::Fixed(d) => d.len(),
        }
    }

    fn page(&self) -> &[u8] {
        match self {
            Unified::Bytes(d) => d.page(),
            Unified::Fixed(d) => d.page(),
        }
    }

    fn intern(&mut self, value: &[u8]) -> u32 {
        match self {
            Unified::Bytes(d) => d.intern(value),
            Unified::Fixed(d) => {
                let mut b = [0u8; 8];
                b[..value.len()].copy_from_slice(value);
                d.intern(u64::from_le_bytes(b))
            }
        }
    }
}

/// The fixed byte width of a column's values (`None` for BYTE_ARRAY and BOOLEAN).
fn value_width(column: &ColumnDescriptor) -> Option<usize> {
    match column.physical_type {
        PhysicalType::FIXED_LEN_BYTE_ARRAY => usize::try_from(column.type_length).ok().filter(|&w| w > 0),
        PhysicalType::BYTE_ARRAY | PhysicalType::BOOLEAN => None,
        p => p.fixed_width(),
    }
}

/// One input dictionary page: its stored bytes, and its values once they are needed.
pub(crate) struct InputDictionary {
    /// The page body as stored (compressed with `codec`), kept so that a data page using every
    /// value once, in order, becomes a PLAIN page of these very bytes (see
    /// [`ChunkMerger::identity_page`]).
    stored: arrow_buffer::Buffer,
    codec: Codec,
    uncompressed_len: usize,
    count: usize,
    /// The decompressed values, parsed when first needed.
    values: Option<DictionaryValues>,
    /// Each value's index in the unified dictionary, when it was interned there.
    remap: Option<Vec<u32>>,
}

impl InputDictionary {
    /// A dictionary page as stored; its values are parsed when first needed.
    fn new(header: &PageHeader, stored: arrow_buffer::Buffer, codec: Codec) -> Self {
        InputDictionary {
            stored,
            codec,
            uncompressed_len: header.uncompressed_page_size.max(0) as usize,
            count: header.dictionary_page_header.as_ref().map_or(0, |h| h.num_values.max(0) as usize),
            values: None,
            remap: None,
        }
    }
}

/// A decompressed dictionary page and where each value lies in it.
struct DictionaryValues {
    bytes: Vec<u8>,
    spans: Vec<(usize, usize)>,
}

impl DictionaryValues {
    fn parse(bytes: Vec<u8>, count: usize, column: &ColumnDescriptor) -> Result<Self> {
        let mut spans = Vec::with_capacity(count.min(bytes.len()));
        match value_width(column) {
            Some(w) => {
                if bytes.len() < count.saturating_mul(w) {
                    return Err(Error::corrupt(format!(
                        "dictionary page: {count} values of {w} bytes need {} bytes, it has {}",
                        count.saturating_mul(w),
                        bytes.len()
                    )));
                }
                spans.extend((0..count).map(|i| (i * w, w)));
            }
            None => {
                let mut pos = 0;
                for i in 0..count {
                    let len = bytes
                        .get(pos..pos + 4)
                        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
                        .filter(|&len| pos + 4 + len <= bytes.len())
                        .ok_or_else(|| Error::corrupt(format!("dictionary page: value {i} runs past the page")))?;
                    spans.push((pos + 4, len));
                    pos += 4 + len;
                }
            }
        }
        Ok(DictionaryValues { bytes, spans })
    }

    fn value(&self, i: usize) -> &[u8] {
        let (start, len) = self.spans[i];
        &self.bytes[start..start + len]
    }
}

/// Builds one output column chunk from several input chunks of the same column.
pub(crate) struct ChunkMerger<'a> {
    column: &'a ColumnDescriptor,
    pages: PageWriter,
    codec: Codec,
    unified: Option<Unified>,
    dictionary_limit: usize,
    full: bool,
    /// Whether any input dictionary went into the unified one.
    interned: bool,
    /// The stored input dictionary pages (and their uncompressed sizes) whose values are the
    /// unified dictionary back to back, while that holds (every value new, codec SNAPPY as
    /// the output's): then the unified page is spliced from them, not compressed again.
    spliced: Option<Vec<(arrow_buffer::Buffer, usize)>>,
    decompressor: Decompressor,
    values: Vec<u8>,
    indexes: Vec<u32>,
    /// The head of a SNAPPY block made by prepending level bytes (see `identity_page`).
    head: Vec<u8>,
    pub counts: PageCounts,
}

impl<'a> ChunkMerger<'a> {
    /// A merger writing pages with `codec` (and `level`), unifying dictionaries up to
    /// `dictionary_limit` bytes, into `blocks` (the previous chunk's, already faulted in).
    pub fn new(column: &'a ColumnDescriptor, codec: Codec, level: Option<i32>, dictionary_limit: usize, blocks: crate::page::PageBlocks) -> Self {
        let mut pages = PageWriter::new(codec, level, crate::page::DataPageVersion::V1, false);
        pages.recycle(blocks);
        ChunkMerger {
            column,
            pages,
            codec,
            unified: Unified::new(column),
            dictionary_limit,
            full: false,
            interned: false,
            spliced: (codec == Codec::Snappy).then(Vec::new),
            decompressor: Decompressor::new(),
            values: Vec::new(),
            indexes: Vec::new(),
            head: Vec::new(),
            counts: PageCounts::default(),
        }
    }

    /// Reads the dictionary page of one input chunk, if it starts with one, and interns its
    /// values into the unified dictionary unless that is full already. Called for the inputs
    /// in order until [`dictionary_full`](Self::dictionary_full), before any
    /// [`add_chunk`](Self::add_chunk): the unified dictionary page must be complete before the
    /// first data page is written. Returns the dictionary when it was interned, for
    /// `add_chunk` to use instead of reading it again.
    pub fn plan_dictionary<S: ChunkSource>(&mut self, source: &S, meta: &ColumnMetaData, created_by: Option<&str>) -> Result<Option<InputDictionary>> {
        if self.full || self.unified.is_none() || meta.dictionary_page_offset.is_none() {
            return Ok(None);
        }
        let codec = Codec::from_thrift(meta.codec.0)?;
        let mut stream = PageStream::new(meta, source.len(), has_parquet_816_bug(created_by))?;
        let Some(page) = stream.next_page(source)? else { return Ok(None) };
        if page.header.page_type != PageType::DICTIONARY_PAGE {
            return Ok(None);
        }
        let place = format!("page {} at file offset {}", page.index, page.offset);
        let mut d = InputDictionary::new(&page.header, page.body, codec);
        self.parse_dictionary(&mut d).map_err(|e| e.context(&place))?;
        let (Some(u), Some(values)) = (self.unified.as_mut(), d.values.as_ref()) else { unreachable!("checked and parsed above") };
        if let Unified::Bytes(b) = u {
            b.reserve(values.spans.len(), values.bytes.len());
        }
        let before = (u.len(), u.page().len());
        d.remap = Some((0..values.spans.len()).map(|i| u.intern(values.value(i))).collect());
        let all_new = u.len() == before.0 + d.count && u.page().len() == before.1 + values.bytes.len();
        match self.spliced.as_mut() {
            Some(pages) if all_new && d.codec == Codec::Snappy => pages.push((d.stored.clone(), values.bytes.len())),
            _ => self.spliced = None,
        }
        self.full = u.page().len() > self.dictionary_limit;
        self.interned = true;
        Ok(Some(d))
    }

    /// Whether the unified dictionary has passed its limit: later inputs' dictionary pages
    /// are not interned (their pages fall back to PLAIN).
    pub fn dictionary_full(&self) -> bool {
        self.full
    }

    /// Sets the unified dictionary page, if any input dictionary went into it; call it after
    /// the last [`plan_dictionary`](Self::plan_dictionary) and before the first
    /// [`add_chunk`](Self::add_chunk).
    pub fn write_dictionary(&mut self, compressor: &mut Compressor) -> Result<()> {
        if let Some(u) = &self.unified {
            // An empty dictionary is still written when remapped pages may refer to it (an
            // all-null column, as pyarrow writes Null columns): readers want a dictionary
            // page before any dictionary-encoded page.
            if let Some(pages) = self.spliced.as_ref().filter(|p| !p.is_empty()) {
                let mut head = Vec::new();
                snappy_splice::push_head(u.page().len(), 0, &mut head)?;
                let mut pieces: Vec<&[u8]> = vec![&head];
                for (stored, len) in pages {
                    pieces.push(&stored[snappy_splice::block_elements(stored, *len)?..]);
                }
                self.pages.write_dictionary_page_stored(&pieces, u.page().len(), u.len())?;
            } else if u.len() > 0 || self.interned {
                self.pages.write_dictionary_page(u.page(), u.len(), compressor)?;
            }
        }
        Ok(())
    }

    /// Appends every page of one input chunk; `planned` is what
    /// [`plan_dictionary`](Self::plan_dictionary) returned for it.
    pub fn add_chunk<S: ChunkSource>(
        &mut self,
        source: &S,
        meta: &ColumnMetaData,
        created_by: Option<&str>,
        compressor: &mut Compressor,
        mut planned: Option<InputDictionary>,
    ) -> Result<()> {
        let codec = Codec::from_thrift(meta.codec.0)?;
        let mut stream = PageStream::new(meta, source.len(), has_parquet_816_bug(created_by))?;
        let mut dictionary: Option<InputDictionary> = None;
        while let Some(page) = stream.next_page(source)? {
            let place = format!("page {} at file offset {}", page.index, page.offset);
            match page.header.page_type {
                PageType::DICTIONARY_PAGE => {
                    // Values are decompressed only when a page needs them (most fallback
                    // pages of unique keys do not: see `identity_page`).
                    dictionary = Some(match planned.take() {
                        Some(d) => d,
                        None => InputDictionary::new(&page.header, page.body, codec),
                    });
                    continue;
                }
                PageType::DATA_PAGE | PageType::DATA_PAGE_V2 => {
                    self.data_page(&page.header, page.body.as_slice(), codec, dictionary.as_mut(), compressor)
                        .map_err(|e| e.context(&place))?;
                }
                _ => {}
            }
            stream.recycle(page.body);
        }
        Ok(())
    }

    /// Hands the pages made so far to `put` (see [`PageWriter::drain`]).
    pub fn drain(&mut self, put: impl FnMut(&[u8]) -> Result<()>) -> Result<()> {
        self.pages.drain(put)
    }

    /// Decompresses and parses `d`'s values unless that was done already.
    fn parse_dictionary(&mut self, d: &mut InputDictionary) -> Result<()> {
        if d.values.is_none() {
            let bytes = self.decompress(d.codec, &d.stored, d.uncompressed_len.min(i32::MAX as usize) as i32)?;
            d.values = Some(DictionaryValues::parse(bytes, d.count, self.column)?);
        }
        Ok(())
    }

    fn decompress(&mut self, codec: Codec, body: &[u8], uncompressed: i32) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        if codec == Codec::Uncompressed {
            out.extend_from_slice(body);
        } else {
            let expected = uncompressed.max(0) as usize;
            crate::compress::check_expansion(codec, body.len(), expected)?;
            self.decompressor.decompress(codec, body, expected, &mut out)?;
        }
        Ok(out)
    }

    fn data_page(
        &mut self,
        header: &PageHeader,
        body: &[u8],
        codec: Codec,
        dictionary: Option<&mut InputDictionary>,
        compressor: &mut Compressor,
    ) -> Result<()> {
        let (num_values, encoding, v2) = match (&header.data_page_header, &header.data_page_header_v2) {
            (Some(h), _) => (h.num_values.max(0) as usize, h.encoding, None),
            (None, Some(h)) => (h.num_values.max(0) as usize, h.encoding, Some(h)),
            _ => return Err(Error::corrupt("a data page without its data page header")),
        };
        let dict_encoded = encoding == Encoding::RLE_DICTIONARY || encoding == Encoding::PLAIN_DICTIONARY;
        if !dict_encoded && codec == self.codec {
            let rows = self.page_rows(header, body, codec)?;
            self.counts.copied += 1;
            return self.pages.append_raw(header, body, rows);
        }
        // Split the page into its level bytes (kept as they are) and decompressed values.
        let (levels, values, present) = match v2 {
            Some(h) => {
                let levels_len = (h.repetition_levels_byte_length.max(0) + h.definition_levels_byte_length.max(0)) as usize;
                let (levels, rest) = body.split_at_checked(levels_len).ok_or_else(|| Error::corrupt("v2 page levels run past the page"))?;
                let values = if h.is_compressed.unwrap_or(true) && codec != Codec::Uncompressed {
                    let want = (header.uncompressed_page_size.max(0) as usize).saturating_sub(levels_len);
                    self.decompress(codec, rest, want as i32)?
                } else {
                    rest.to_vec()
                };
                let present = num_values.saturating_sub(h.num_nulls.max(0) as usize);
                (levels.to_vec(), values, present)
            }
            None => {
                let page = self.decompress(codec, body, header.uncompressed_page_size)?;
                let (levels_len, present) = self.v1_levels(header, &page, num_values)?;
                let values = page[levels_len..].to_vec();
                let mut levels = page;
                levels.truncate(levels_len);
                (levels, values, present)
            }
        };
        let rows = self.page_rows(header, body, codec)?;
        if !dict_encoded {
            self.counts.reencoded += 1;
            return self.pages.write_like(header, &levels, &values, encoding, rows, compressor);
        }
        let dictionary = dictionary.ok_or_else(|| Error::corrupt("a dictionary-encoded page comes before any dictionary page"))?;
        let width = *values.first().ok_or_else(|| Error::corrupt("a dictionary-encoded page without its bit width"))?;
        self.indexes.clear();
        RleDecoder::new(&values[1..], width)?.decode_exact(present, &mut self.indexes)?;
        let n = dictionary.count;
        if let Some(bad) = self.indexes.iter().find(|&&i| i as usize >= n) {
            return Err(Error::corrupt(format!("dictionary index {bad} is past the dictionary's {n} values")));
        }
        if dictionary.remap.is_none() && self.identity_page(header, &levels, dictionary, rows)? {
            self.counts.from_dictionary += 1;
            return Ok(());
        }
        self.parse_dictionary(dictionary)?;
        self.values.clear();
        match (&dictionary.remap, self.unified.as_ref()) {
            (Some(remap), Some(unified)) => {
                let width = bit_width(unified.len());
                self.values.push(width);
                let mut rle = RleEncoder::new(width);
                self.indexes.iter().for_each(|&i| rle.put(remap[i as usize]));
                rle.finish_into(&mut self.values);
                self.counts.remapped += 1;
                let values = std::mem::take(&mut self.values);
                let r = self.pages.write_like(header, &levels, &values, Encoding::RLE_DICTIONARY, rows, compressor);
                self.values = values;
                r
            }
            _ => {
                if self.column.physical_type == PhysicalType::BOOLEAN {
                    return Err(Error::unsupported("dictionary-encoded BOOLEAN pages cannot be merged"));
                }
                let fixed = value_width(self.column).is_some();
                let Some(dictionary) = dictionary.values.as_ref() else { unreachable!("parsed above") };
                for &i in &self.indexes {
                    let v = dictionary.value(i as usize);
                    if !fixed {
                        self.values.extend_from_slice(&(v.len() as u32).to_le_bytes());
                    }
                    self.values.extend_from_slice(v);
                }
                self.counts.reencoded += 1;
                let values = std::mem::take(&mut self.values);
                let r = self.pages.write_like(header, &levels, &values, Encoding::PLAIN, rows, compressor);
                self.values = values;
                r
            }
        }
    }

    /// Writes a fallback PLAIN page without gathering or compressing its values when the page's
    /// indexes are exactly `0, 1, .., n - 1` over its dictionary's `n` values: its values are
    /// then the dictionary page's own bytes, in order. That is the common case for a column of
    /// unique keys (each input's dictionary lists its values in first-seen order, each used
    /// once). v2 pages take the dictionary's stored bytes as their values section (any codec);
    /// v1 pages put the level bytes in front of them, which only SNAPPY blocks allow without
    /// decompressing (or no codec). Returns false (nothing written) otherwise.
    fn identity_page(&mut self, header: &PageHeader, levels: &[u8], d: &InputDictionary, rows: usize) -> Result<bool> {
        let identity = d.count > 0
            && self.indexes.len() == d.count
            && self.indexes.iter().enumerate().all(|(k, &i)| i as usize == k);
        if !identity || d.codec != self.codec {
            return Ok(false);
        }
        // Stored bytes without a codec are the values: their length is known, not claimed.
        let values_len = if d.codec == Codec::Uncompressed { d.stored.len() } else { d.uncompressed_len };
        let uncompressed_len = levels.len() + values_len;
        if header.page_type == PageType::DATA_PAGE_V2 || self.codec == Codec::Uncompressed {
            self.pages.write_like_stored(header, uncompressed_len, Encoding::PLAIN, rows, &[levels, &d.stored])?;
            return Ok(true);
        }
        if self.codec != Codec::Snappy {
            return Ok(false);
        }
        self.head.clear();
        let skip = snappy_splice::block_elements(&d.stored, d.uncompressed_len)?;
        snappy_splice::push_head(uncompressed_len, levels.len(), &mut self.head)?;
        let head = std::mem::take(&mut self.head);
        let result = self.pages.write_like_stored(header, uncompressed_len, Encoding::PLAIN, rows, &[&head, levels, &d.stored[skip..]]);
        self.head = head;
        result.map(|()| true)
    }

    /// The byte length of a decompressed v1 page's level sections and its count of present
    /// (non-null) values.
    fn v1_levels(&self, header: &PageHeader, page: &[u8], num_values: usize) -> Result<(usize, usize)> {
        let Some(h) = &header.data_page_header else { return Ok((0, num_values)) };
        let c = self.column;
        let mut rest = page;
        if c.max_rep_level > 0 {
            rest = split_v1_levels(rest, h.repetition_level_encoding, c.max_rep_level, num_values, "repetition")?.1;
        }
        let mut present = num_values;
        if c.max_def_level > 0 {
            let (levels, after) = split_v1_levels(rest, h.definition_level_encoding, c.max_def_level, num_values, "definition")?;
            rest = after;
            let width = level_bit_width(c.max_def_level);
            self.scratch_levels(levels, width, num_values, c.max_def_level, &mut present)?;
        }
        Ok((page.len() - rest.len(), present))
    }

    fn scratch_levels(&self, levels: LevelData<'_>, width: u8, n: usize, max: i16, present: &mut usize) -> Result<()> {
        let mut decoded: Vec<u16> = Vec::new();
        match levels {
            LevelData::Rle(data) => RleDecoder::new(data, width)?.decode_exact(n, &mut decoded)?,
            LevelData::BitPacked(data) => {
                decode_bit_packed_msb(data, width, n, &mut decoded)?;
            }
        }
        *present = decoded.iter().filter(|&&l| l as i16 == max).count();
        Ok(())
    }

    /// Rows in a data page: its value count for flat columns, the header's row count for v2;
    /// for nested v1 pages, the repetition levels that start a record.
    fn page_rows(&mut self, header: &PageHeader, body: &[u8], codec: Codec) -> Result<usize> {
        if let Some(h) = &header.data_page_header_v2 {
            return Ok(h.num_rows.max(0) as usize);
        }
        let Some(h) = &header.data_page_header else { return Ok(0) };
        let n = h.num_values.max(0) as usize;
        if self.column.max_rep_level == 0 {
            return Ok(n);
        }
        let page = self.decompress(codec, body, header.uncompressed_page_size)?;
        let (levels, _) = split_v1_levels(&page, h.repetition_level_encoding, self.column.max_rep_level, n, "repetition")?;
        let width = level_bit_width(self.column.max_rep_level);
        let mut decoded: Vec<u16> = Vec::new();
        match levels {
            LevelData::Rle(data) => RleDecoder::new(data, width)?.decode_exact(n, &mut decoded)?,
            LevelData::BitPacked(data) => {
                decode_bit_packed_msb(data, width, n, &mut decoded)?;
            }
        }
        Ok(decoded.iter().filter(|&&l| l == 0).count())
    }

    /// Ends the chunk; its `pages` also carry the writer's spare blocks, for the next chunk.
    pub fn finish(mut self) -> (crate::page::FinishedChunk, PageCounts) {
        let mut chunk = self.pages.finish();
        chunk.pages.recycle(self.pages.into_blocks());
        (chunk, self.counts)
    }
}

/// Bits for indexes into a dictionary of `len` values (at least 1, as the writer does).
fn bit_width(len: usize) -> u8 {
    match len {
        0..=2 => 1,
        n => (usize::BITS - (n - 1).leading_zeros()) as u8,
    }
}
