//! One output column chunk made from the same column of several input row groups, at the
//! page level: pages without a dictionary are copied as they are (recompressed only for a new
//! codec); dictionary-encoded pages get their indexes remapped into one unified dictionary,
//! built by hashing each input dictionary's values once; once that dictionary passes its limit,
//! later inputs' dictionary pages are turned into PLAIN pages gathered from their own
//! dictionaries, what a writer's fallback would produce. Levels are copied, never decoded
//! beyond what counting values needs.

use crate::compress::{snappy_splice, Codec, Compressor, Decompressor};
use crate::encoding::dictionary::{Dictionary, DictionaryMap};
use crate::encoding::rle::{RleDecoder, RleEncoder};
use crate::error::{Error, Result};
use crate::format::{ColumnMetaData, Encoding, PageHeader, PageType, PhysicalType};
use crate::page::{has_parquet_816_bug, ChunkSource, DataPageSections, Page, PageDecompressor, PageStream, PageWriter};
use crate::read::levels::count_levels;
use crate::schema::ColumnDescriptor;

use super::dictionary::{unified, value_width, DictionaryValues, InputDictionary};

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

/// Builds one output column chunk from several input chunks of the same column.
pub(crate) struct ChunkMerger<'a> {
    column: &'a ColumnDescriptor,
    pages: PageWriter,
    codec: Codec,
    unified: Option<Dictionary>,
    dictionary_limit: usize,
    full: bool,
    /// Whether any input dictionary went into the unified one.
    interned: bool,
    /// The stored input dictionary pages (and their uncompressed sizes) whose values are the
    /// unified dictionary back to back, while that holds (every value new, codec SNAPPY as
    /// the output's): then the unified page is spliced from them, not compressed again.
    spliced: Option<Vec<(arrow_buffer::Buffer, usize)>>,
    decompressor: Decompressor,
    /// Opens the data pages that are not copied as they are (one per input chunk's codec).
    pages_in: Option<PageDecompressor>,
    /// Levels decoded to be counted.
    levels: Vec<i16>,
    values: Vec<u8>,
    indexes: Vec<u32>,
    /// The head of a SNAPPY block made from a dictionary page (see `page_from_dictionary`).
    head: Vec<u8>,
    /// A page's repeated dictionary values, for `page_from_dictionary`.
    repeats: Vec<(usize, usize)>,
    pub counts: PageCounts,
}

impl<'a> ChunkMerger<'a> {
    /// A merger writing pages with `codec` (and `level`), unifying dictionaries up to
    /// `dictionary_limit` bytes, into `blocks` (the previous chunk's, already faulted in).
    pub fn new(
        column: &'a ColumnDescriptor,
        codec: Codec,
        level: Option<i32>,
        dictionary_limit: usize,
        blocks: crate::page::PageBlocks,
    ) -> Self {
        let mut pages = PageWriter::new(codec, level, crate::page::DataPageVersion::V1, false);
        pages.recycle(blocks);
        ChunkMerger {
            column,
            pages,
            codec,
            unified: unified(column),
            dictionary_limit,
            full: false,
            interned: false,
            spliced: (codec == Codec::Snappy).then(Vec::new),
            decompressor: Decompressor::new(),
            pages_in: None,
            levels: Vec::new(),
            values: Vec::new(),
            indexes: Vec::new(),
            head: Vec::new(),
            repeats: Vec::new(),
            counts: PageCounts::default(),
        }
    }

    /// Reads the dictionary page of one input chunk, if it starts with one, and interns its
    /// values into the unified dictionary unless that is full already. Called for the inputs
    /// in order until [`dictionary_full`](Self::dictionary_full), before any
    /// [`add_chunk`](Self::add_chunk): the unified dictionary page must be complete before the
    /// first data page is written. Returns the dictionary when it was interned, for
    /// `add_chunk` to use instead of reading it again.
    pub fn plan_dictionary<S: ChunkSource>(
        &mut self,
        source: &S,
        meta: &ColumnMetaData,
        created_by: Option<&str>,
    ) -> Result<Option<InputDictionary>> {
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
        let values = self
            .parse_dictionary(&mut d.values, d.codec, &d.stored, d.uncompressed_len, d.count)
            .map_err(|e| e.context(&place))?;
        let Some(u) = self.unified.as_mut() else { return Ok(None) };
        if let Dictionary::Bytes(b) = u {
            b.reserve(values.spans.len(), values.bytes.len());
        }
        let before = (u.len(), u.page().len());
        d.remap = Some(DictionaryMap::intern(u, (0..values.spans.len()).map(|i| values.value(i))));
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
            if let Some(pages) = self.spliced.as_ref().filter(|p| !p.is_empty()) {
                let mut head = Vec::new();
                snappy_splice::push_head(u.page().len(), 0, &mut head)?;
                let mut pieces: Vec<&[u8]> = vec![&head];
                for (stored, len) in pages {
                    pieces.push(&stored[snappy_splice::block_elements(stored, *len)?..]);
                }
                self.pages.write_dictionary_page_stored(&pieces, u.page().len(), u.len())?;
            } else if u.len() > 0 || self.interned {
                // An empty dictionary is still written when remapped pages may refer to it
                // (an all-null column, as pyarrow writes Null columns): readers want a
                // dictionary page before any dictionary-encoded page.
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
        source.prefetch(&[stream.byte_range()]);
        let c = self.column;
        self.pages_in = Some(PageDecompressor::new(codec, c.max_rep_level, c.max_def_level, false));
        let mut dictionary: Option<InputDictionary> = None;
        while let Some(page) = stream.next_page(source)? {
            let place = format!("page {} at file offset {}", page.index, page.offset);
            match page.header.page_type {
                PageType::DICTIONARY_PAGE => {
                    // Values are decompressed only when a page needs them (most fallback
                    // pages of unique keys do not: see `page_from_dictionary`).
                    dictionary = Some(match planned.take() {
                        Some(d) => d,
                        None => InputDictionary::new(&page.header, page.body, codec),
                    });
                    continue;
                }
                PageType::DATA_PAGE | PageType::DATA_PAGE_V2 => {
                    if let Some(body) =
                        self.data_page(page, codec, dictionary.as_mut(), compressor).map_err(|e| e.context(&place))?
                    {
                        stream.recycle(body);
                    }
                }
                _ => stream.recycle(page.body),
            }
        }
        Ok(())
    }

    /// Hands the pages made so far to `put` (see [`PageWriter::drain`]).
    pub fn drain(&mut self, put: impl FnMut(&[u8]) -> Result<()>) -> Result<()> {
        self.pages.drain(put)
    }

    /// Decompresses and parses `d`'s values unless that was done already.
    /// An input dictionary's values (its `values` field), decompressed and parsed from its
    /// stored page the first time they are asked for. It borrows that field alone, so that the
    /// dictionary's other fields stay free while the values are in use.
    fn parse_dictionary<'v>(
        &mut self,
        values: &'v mut Option<DictionaryValues>,
        codec: Codec,
        stored: &[u8],
        uncompressed_len: usize,
        count: usize,
    ) -> Result<&'v DictionaryValues> {
        match values {
            Some(v) => Ok(v),
            slot => {
                let bytes = self.decompress(codec, stored, uncompressed_len.min(i32::MAX as usize) as i32)?;
                Ok(slot.insert(DictionaryValues::parse(bytes, count, self.column)?))
            }
        }
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

    /// Appends one data page: copied as it is when neither its values nor its codec change,
    /// else opened in the page layer and written again. Returns the stored body when nothing
    /// holds it any more, for the stream to reuse.
    fn data_page(
        &mut self,
        page: Page,
        codec: Codec,
        dictionary: Option<&mut InputDictionary>,
        compressor: &mut Compressor,
    ) -> Result<Option<arrow_buffer::Buffer>> {
        let encoding = match (&page.header.data_page_header, &page.header.data_page_header_v2) {
            (Some(h), _) => h.encoding,
            (None, Some(h)) => h.encoding,
            _ => return Err(Error::corrupt("a data page without its data page header")),
        };
        let dict_encoded = encoding == Encoding::RLE_DICTIONARY || encoding == Encoding::PLAIN_DICTIONARY;
        if !dict_encoded && codec == self.codec && !self.needs_levels_for_rows(&page.header) {
            let rows = crate::page::data_page_rows(&page.header).unwrap_or(0);
            self.counts.copied += 1;
            self.pages.append_raw(&page.header, page.body.as_slice(), rows)?;
            return Ok(Some(page.body));
        }
        let header = page.header.clone();
        let pages_in = self.pages_in.as_mut().ok_or_else(|| Error::corrupt("a data page outside a column chunk"))?;
        let sections = pages_in.split_data_page(page)?;
        let result = self.sections(&header, &sections, encoding, dict_encoded, codec, dictionary, compressor);
        let DataPageSections { decompressed, body, .. } = sections;
        if let (Some(d), Some(p)) = (decompressed, self.pages_in.as_mut()) {
            p.recycle(d);
        }
        result.map(|()| Some(body))
    }

    /// Whether a page's row count needs its repetition levels: a v1 page of a repeated column
    /// (v2 headers carry the count; flat columns have a row per value).
    fn needs_levels_for_rows(&self, header: &PageHeader) -> bool {
        header.data_page_header.is_some() && self.column.max_rep_level > 0
    }

    /// The records a data page starts: its v2 row count, its value count for a flat column,
    /// or its repetition levels of 0.
    fn sections_rows(&mut self, s: &DataPageSections) -> Result<usize> {
        let c = self.column;
        match s.v2_counts {
            Some((rows, _)) => Ok(rows),
            None if c.max_rep_level == 0 => Ok(s.num_values),
            None => count_levels(s.repetition.data(), c.max_rep_level, s.num_values, 0, &mut self.levels, "repetition"),
        }
    }

    /// Writes a data page opened in the page layer: copied with its levels as they are
    /// (recompressed), its dictionary indexes remapped, or turned into PLAIN values.
    #[allow(clippy::too_many_arguments)]
    fn sections(
        &mut self,
        header: &PageHeader,
        s: &DataPageSections,
        encoding: Encoding,
        dict_encoded: bool,
        codec: Codec,
        dictionary: Option<&mut InputDictionary>,
        compressor: &mut Compressor,
    ) -> Result<()> {
        let rows = self.sections_rows(s)?;
        let (levels, values) = (s.levels_stored.as_slice(), s.values.as_slice());
        if !dict_encoded && codec == self.codec {
            // A nested v1 page opened only to count its records: its stored bytes go as they are.
            self.counts.copied += 1;
            return self.pages.append_raw(header, s.body.as_slice(), rows);
        }
        if !dict_encoded {
            self.counts.reencoded += 1;
            return self.pages.write_like(header, levels, values, encoding, rows, compressor);
        }
        let c = self.column;
        let present = match s.v2_counts {
            Some((_, nulls)) => s.num_values.saturating_sub(nulls),
            None if c.max_def_level == 0 => s.num_values,
            None => count_levels(
                s.definition.data(),
                c.max_def_level,
                s.num_values,
                c.max_def_level,
                &mut self.levels,
                "definition",
            )?,
        };
        let dictionary =
            dictionary.ok_or_else(|| Error::corrupt("a dictionary-encoded page comes before any dictionary page"))?;
        let width = *values.first().ok_or_else(|| Error::corrupt("a dictionary-encoded page without its bit width"))?;
        self.indexes.clear();
        RleDecoder::new(&values[1..], width)?.decode_exact(present, &mut self.indexes)?;
        let n = dictionary.count;
        if let Some(bad) = self.indexes.iter().find(|&&i| i as usize >= n) {
            return Err(Error::corrupt(format!("dictionary index {bad} is past the dictionary's {n} values")));
        }
        if dictionary.remap.is_none() && self.page_from_dictionary(header, levels, dictionary, rows)? {
            self.counts.from_dictionary += 1;
            return Ok(());
        }
        let d = dictionary;
        let parsed = self.parse_dictionary(&mut d.values, d.codec, &d.stored, d.uncompressed_len, d.count)?;
        self.values.clear();
        match (&d.remap, self.unified.as_ref()) {
            (Some(remap), Some(unified)) => {
                let width = bit_width(unified.len());
                self.values.push(width);
                let mut rle = RleEncoder::new(width);
                self.indexes.iter().for_each(|&i| rle.put(remap.indexes[i as usize]));
                rle.finish_into(&mut self.values);
                self.counts.remapped += 1;
                let values = std::mem::take(&mut self.values);
                let r = self.pages.write_like(header, levels, &values, Encoding::RLE_DICTIONARY, rows, compressor);
                self.values = values;
                r
            }
            _ => {
                if self.column.physical_type == PhysicalType::BOOLEAN {
                    return Err(Error::unsupported("dictionary-encoded BOOLEAN pages cannot be merged"));
                }
                let fixed = value_width(self.column).is_some();
                for &i in &self.indexes {
                    let v = parsed.value(i as usize);
                    if !fixed {
                        self.values.extend_from_slice(&(v.len() as u32).to_le_bytes());
                    }
                    self.values.extend_from_slice(v);
                }
                self.counts.reencoded += 1;
                let values = std::mem::take(&mut self.values);
                let r = self.pages.write_like(header, levels, &values, Encoding::PLAIN, rows, compressor);
                self.values = values;
                r
            }
        }
    }

    /// Writes a fallback PLAIN page without gathering or compressing its values when the page
    /// uses each of its dictionary's `n` values in order, `0, 1, .., n - 1`, with at most a
    /// few repeats of earlier values in between. That is the common case for a column of
    /// (nearly) unique keys: each input's dictionary lists its values in first-seen order.
    ///
    /// Without repeats the page's values are the dictionary page's own bytes: v2 pages take
    /// its stored bytes as their values section (any codec); v1 pages put the level bytes in
    /// front, which SNAPPY blocks allow without decompressing (or no codec). With repeats
    /// (SNAPPY only), the repeated values are spliced into the dictionary's block where they
    /// occur ([`snappy_splice::splice_inserts`]). Returns false (nothing written) otherwise.
    fn page_from_dictionary(
        &mut self,
        header: &PageHeader,
        levels: &[u8],
        d: &mut InputDictionary,
        rows: usize,
    ) -> Result<bool> {
        if d.count == 0 || d.codec != self.codec {
            return Ok(false);
        }
        // Repeats as (the index of the next new value, the repeated value's index).
        self.repeats.clear();
        let mut next = 0usize;
        for &i in &self.indexes {
            let i = i as usize;
            if i == next {
                next += 1;
            } else if i < next && self.repeats.len() < MAX_REPEATS {
                self.repeats.push((next, i));
            } else {
                return Ok(false);
            }
        }
        if next != d.count {
            return Ok(false);
        }
        let v2 = header.page_type == PageType::DATA_PAGE_V2;
        if self.repeats.is_empty() && (v2 || matches!(self.codec, Codec::Snappy | Codec::Uncompressed)) {
            self.identity_page(header, levels, d, rows)?;
            return Ok(true);
        }
        if self.codec != Codec::Snappy {
            return Ok(false);
        }
        let values = self.parse_dictionary(&mut d.values, d.codec, &d.stored, d.uncompressed_len, d.count)?;
        // A value's PLAIN bytes (with its length prefix for BYTE_ARRAY) lie whole in the page.
        let prefix = if value_width(self.column).is_some() { 0 } else { 4 };
        let start = |k: usize| values.spans.get(k).map_or(values.bytes.len(), |s| s.0 - prefix);
        let inserts: Vec<(usize, &[u8])> = self
            .repeats
            .iter()
            .map(|&(at, i)| {
                let (from, len) = values.spans[i];
                (start(at), &values.bytes[from - prefix..from + len])
            })
            .collect();
        let inserted: usize = inserts.iter().map(|i| i.1.len()).sum();
        if inserted > values.bytes.len() / 64 {
            // Inserted values are stored as they are: only worth it for a few.
            return Ok(false);
        }
        self.head.clear();
        snappy_splice::splice_inserts(
            &d.stored,
            d.uncompressed_len,
            if v2 { &[] } else { levels },
            &inserts,
            &mut self.head,
        )?;
        let uncompressed_len = levels.len() + d.uncompressed_len + inserted;
        let head = std::mem::take(&mut self.head);
        let pieces: &[&[u8]] = if v2 { &[levels, &head] } else { &[&head] };
        let result = self.pages.write_like_stored(header, uncompressed_len, Encoding::PLAIN, rows, pieces);
        self.head = head;
        result.map(|()| true)
    }

    /// [`page_from_dictionary`](Self::page_from_dictionary) for a page that uses every value
    /// of `d` once, in order: its values are `d`'s stored bytes. The page is v2, or its codec
    /// (the output's and `d`'s) is SNAPPY or none.
    fn identity_page(&mut self, header: &PageHeader, levels: &[u8], d: &InputDictionary, rows: usize) -> Result<()> {
        // Stored bytes without a codec are the values: their length is known, not claimed.
        let values_len = if d.codec == Codec::Uncompressed { d.stored.len() } else { d.uncompressed_len };
        let uncompressed_len = levels.len() + values_len;
        if header.page_type == PageType::DATA_PAGE_V2 || self.codec == Codec::Uncompressed {
            return self.pages.write_like_stored(header, uncompressed_len, Encoding::PLAIN, rows, &[levels, &d.stored]);
        }
        self.head.clear();
        let skip = snappy_splice::block_elements(&d.stored, d.uncompressed_len)?;
        snappy_splice::push_head(uncompressed_len, levels.len(), &mut self.head)?;
        let head = std::mem::take(&mut self.head);
        let result = self.pages.write_like_stored(
            header,
            uncompressed_len,
            Encoding::PLAIN,
            rows,
            &[&head, levels, &d.stored[skip..]],
        );
        self.head = head;
        result
    }

    /// The unified dictionary (every value of the dictionary-encoded pages), if any input
    /// dictionary went into it.
    pub fn unified(&self) -> Option<&Dictionary> {
        self.unified.as_ref().filter(|_| self.interned)
    }

    /// Ends the chunk; its `pages` also carry the writer's spare blocks, for the next chunk.
    pub fn finish(mut self) -> Result<(crate::page::FinishedChunk, PageCounts)> {
        let mut chunk = self.pages.finish()?;
        chunk.pages.recycle(self.pages.into_blocks());
        Ok((chunk, self.counts))
    }
}

/// The most repeated values a PLAIN page made from a dictionary page splices in.
const MAX_REPEATS: usize = 64;

/// Bits for indexes into a dictionary of `len` values (at least 1, as the writer does).
fn bit_width(len: usize) -> u8 {
    match len {
        0..=2 => 1,
        n => (usize::BITS - (n - 1).leading_zeros()) as u8,
    }
}
