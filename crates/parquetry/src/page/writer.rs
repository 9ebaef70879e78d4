//! Writing pages: a data or dictionary page body is compressed, given its header (and CRC),
//! and appended to the column chunk's buffer, which records where each page starts for the
//! OffsetIndex and sums the sizes for the chunk's metadata.
//!
//! The writer and the merge both end here: the writer hands over encoded levels and values,
//! the merge hands over pages it copied or remapped.

use super::blocks::PageBlocks;
use super::data_page::{data_page_header, DataPage, DataPageVersion, OWN_VALUES_FROM};
use super::deferred::{CompressorPool, Deferred, PendingPage};
use super::spill::{Segment, SpillFile};
use crate::compress::{Codec, Compressor};
use crate::error::Result;
use crate::format::{thrift, DictionaryPageHeader, Encoding, PageEncodingStats, PageHeader, PageLocation, PageType};

/// Builds one column chunk's pages in memory.
#[derive(Debug)]
pub struct PageWriter {
    codec: Codec,
    level: Option<i32>,
    version: DataPageVersion,
    crc: bool,
    body: Vec<u8>,
    stored: Vec<u8>,
    dictionary: Vec<u8>,
    dictionary_uncompressed: usize,
    /// Bytes of the dictionary page already handed out by [`drain`](Self::drain).
    dictionary_drained: usize,
    pages: PageBlocks,
    header: Vec<u8>,
    spilled: Vec<Segment>,
    spilled_len: u64,
    locations: Vec<PageLocation>,
    encoding_stats: Vec<PageEncodingStats>,
    encodings: Vec<Encoding>,
    uncompressed_size: u64,
    num_values: u64,
    rows: u64,
    /// Data pages kept back to be compressed a batch at a time on threads.
    deferred: Option<Deferred>,
}

impl PageWriter {
    /// A writer for pages compressed with `codec` at `level`, in the given page format, with
    /// CRCs when `crc`.
    pub fn new(codec: Codec, level: Option<i32>, version: DataPageVersion, crc: bool) -> Self {
        PageWriter {
            codec,
            level,
            version,
            crc,
            body: Vec::new(),
            stored: Vec::new(),
            dictionary: Vec::new(),
            dictionary_uncompressed: 0,
            dictionary_drained: 0,
            pages: PageBlocks::default(),
            header: Vec::new(),
            spilled: Vec::new(),
            spilled_len: 0,
            locations: Vec::new(),
            encoding_stats: Vec::new(),
            encodings: Vec::new(),
            uncompressed_size: 0,
            num_values: 0,
            rows: 0,
            deferred: None,
        }
    }

    /// Keeps data pages back and compresses them a batch at a time, on the threads of the
    /// pool that calls this writer (`compressors` shared with the other columns' writers).
    /// Nothing changes in the output; without a codec there is nothing to defer.
    pub fn defer_compression(&mut self, compressors: CompressorPool) {
        if self.codec != Codec::Uncompressed {
            self.deferred = Some(Deferred::new(compressors));
        }
    }

    /// The codec of the pages.
    pub fn codec(&self) -> Codec {
        self.codec
    }

    fn note(&mut self, page_type: PageType, encoding: Encoding) {
        if !self.encodings.contains(&encoding) {
            self.encodings.push(encoding);
        }
        match self.encoding_stats.iter_mut().find(|s| s.page_type == page_type && s.encoding == encoding) {
            Some(s) => s.count += 1,
            None => self.encoding_stats.push(PageEncodingStats { page_type, encoding, count: 1 }),
        }
    }

    /// Compresses and appends one data page (or keeps it back, see
    /// [`defer_compression`](Self::defer_compression)).
    pub fn write_data_page(&mut self, page: DataPage<'_>, compressor: &mut Compressor) -> Result<()> {
        let num_values = i32::try_from(page.num_values).map_err(|_| too_big("value count", page.num_values))?;
        let v1 = self.version == DataPageVersion::V1;
        let rep_prefix = (page.repetition_levels.len() as u32).to_le_bytes();
        let def_prefix = (page.definition_levels.len() as u32).to_le_bytes();
        let empty: &[u8] = &[];
        // The stored body in pieces: v1 puts each level section behind its length; v2 stores
        // the levels bare (their lengths are in the header).
        let levels: [&[u8]; 4] = [
            if v1 && page.has_repetition_levels { &rep_prefix } else { empty },
            page.repetition_levels,
            if v1 && page.has_definition_levels { &def_prefix } else { empty },
            page.definition_levels,
        ];
        let levels_len: usize = levels.iter().map(|l| l.len()).sum();
        let uncompressed_len = levels_len + page.values.len();
        let header = data_page_header(&page, self.version, self.codec, num_values);
        let has_levels = page.has_definition_levels || page.has_repetition_levels;
        if let Some(deferred) = self.deferred.as_mut() {
            let mut kept = deferred.page();
            let before_values = if v1 { &mut kept.input } else { &mut kept.prefix };
            levels.iter().for_each(|l| before_values.extend_from_slice(l));
            kept.input.extend_from_slice(page.values);
            kept.header = Some(header);
            kept.uncompressed_len = uncompressed_len;
            kept.rows = page.num_rows;
            kept.has_levels = has_levels;
            kept.v2 = !v1;
            if deferred.push(kept) {
                let pages = deferred.launch(self.codec, self.level)?;
                self.append_compressed(pages)?;
            }
            return Ok(());
        }
        if self.codec == Codec::Uncompressed && page.values.len() >= OWN_VALUES_FROM {
            return self.append_data_page(
                header,
                uncompressed_len,
                &levels,
                Some(page.values),
                page.num_rows,
                has_levels,
            );
        }
        let (mut body, mut stored) = (std::mem::take(&mut self.body), std::mem::take(&mut self.stored));
        body.clear();
        stored.clear();
        let compressed = if self.codec == Codec::Uncompressed {
            Ok(())
        } else if !v1 {
            // v2 compresses the values only; no values are stored as no bytes (duckdb fails
            // on an empty LZ4 block there, and parquet-java writes nothing).
            levels.iter().for_each(|l| stored.extend_from_slice(l));
            if page.values.is_empty() {
                Ok(())
            } else {
                compressor.compress(self.codec, self.level, page.values, &mut stored)
            }
        } else if levels_len == 0 {
            compressor.compress(self.codec, self.level, page.values, &mut stored)
        } else {
            levels.iter().for_each(|l| body.extend_from_slice(l));
            body.extend_from_slice(page.values);
            compressor.compress(self.codec, self.level, &body, &mut stored)
        };
        let result = compressed.and_then(|()| {
            let pieces: [&[u8]; 5] = if self.codec == Codec::Uncompressed {
                // Nothing to compress: the pieces go straight into the chunk.
                [levels[0], levels[1], levels[2], levels[3], page.values]
            } else {
                [&stored, empty, empty, empty, empty]
            };
            self.append_data_page(header, uncompressed_len, &pieces, None, page.num_rows, has_levels)
        });
        (self.body, self.stored) = (body, stored);
        result
    }

    /// Appends a data page whose stored bytes are `pieces` one after another, then the bytes
    /// of `owned` if given (taken, see [`PageBlocks::push_page_owning`]): sets the header's
    /// sizes (and CRC), and records the page.
    fn append_data_page(
        &mut self,
        mut header: PageHeader,
        uncompressed_len: usize,
        pieces: &[&[u8]],
        owned: Option<&mut Vec<u8>>,
        rows: usize,
        has_levels: bool,
    ) -> Result<()> {
        let owned_len = owned.as_ref().map_or(0, |v| v.len());
        let stored_len: usize = pieces.iter().map(|p| p.len()).sum::<usize>() + owned_len;
        header.uncompressed_page_size =
            i32::try_from(uncompressed_len).map_err(|_| too_big("uncompressed size", uncompressed_len))?;
        header.compressed_page_size = i32::try_from(stored_len).map_err(|_| too_big("compressed size", stored_len))?;
        header.crc = self.crc.then(|| {
            let mut h = crc32fast::Hasher::new();
            pieces.iter().for_each(|p| h.update(p));
            if let Some(v) = owned.as_deref() {
                h.update(v);
            }
            h.finalize() as i32
        });
        let start = self.pages.len();
        self.header.clear();
        thrift::encode(&header, &mut self.header);
        let header_len = self.header.len();
        let mut all: [&[u8]; 6] = [&[]; 6];
        all[0] = &self.header;
        for (slot, piece) in all[1..].iter_mut().zip(pieces) {
            *slot = piece;
        }
        let head = &all[..1 + pieces.len().min(5)];
        match owned {
            Some(values) => self.pages.push_page_owning(head, values),
            None => self.pages.push_page(head),
        }
        self.push_location(start, header_len, uncompressed_len, rows);
        let (num_values, encoding) = data_page_facts(&header);
        self.num_values += num_values;
        self.note(header.page_type, encoding);
        // Levels are RLE: the chunk lists the encoding, but page counts are by value encoding.
        if has_levels && !self.encodings.contains(&Encoding::RLE) {
            self.encodings.push(Encoding::RLE);
        }
        Ok(())
    }

    /// Compresses and appends the data pages kept back, in order.
    pub fn flush_deferred(&mut self) -> Result<()> {
        let Some(deferred) = self.deferred.as_mut() else { return Ok(()) };
        let pages = deferred.finish(self.codec, self.level)?;
        self.append_compressed(pages)
    }

    /// Appends data pages that were kept back and are compressed now, in order, and gives
    /// their buffers back for the next ones.
    fn append_compressed(&mut self, mut pages: Vec<PendingPage>) -> Result<()> {
        let mut result = Ok(());
        for page in &mut pages {
            let Some(header) = page.header.take() else { continue };
            if result.is_ok() {
                let pieces: [&[u8]; 2] = [&page.prefix, &page.output];
                result =
                    self.append_data_page(header, page.uncompressed_len, &pieces, None, page.rows, page.has_levels);
            }
        }
        if let Some(deferred) = self.deferred.as_mut() {
            deferred.recycle(pages);
        }
        result
    }

    /// Appends a data page as it is (header and stored body, e.g. copied from another file
    /// with the same codec); `rows` is the number of rows it holds.
    pub fn append_raw(&mut self, header: &PageHeader, body: &[u8], rows: usize) -> Result<()> {
        self.flush_deferred()?;
        let start = self.pages.len();
        self.header.clear();
        thrift::encode(header, &mut self.header);
        let header_len = self.header.len();
        self.pages.push_page(&[&self.header, body]);
        self.push_location(start, header_len, header.uncompressed_page_size.max(0) as usize, rows);
        let (num_values, encoding) = data_page_facts(header);
        self.num_values += num_values;
        self.note(header.page_type, encoding);
        Ok(())
    }

    /// Writes a data page shaped like `template` (its type, counts, level encodings and
    /// statistics) with new contents: `levels` are the page's level bytes as the page type
    /// stores them (v1: with length prefixes; v2: bare, the lengths stay the template's),
    /// `values` the new encoded values in `encoding`. Compressed with this writer's codec.
    pub fn write_like(
        &mut self,
        template: &PageHeader,
        levels: &[u8],
        values: &[u8],
        encoding: Encoding,
        rows: usize,
        compressor: &mut Compressor,
    ) -> Result<()> {
        self.stored.clear();
        if template.page_type == PageType::DATA_PAGE_V2 {
            self.stored.extend_from_slice(levels);
            if !values.is_empty() {
                compressor.compress(self.codec, self.level, values, &mut self.stored)?;
            }
        } else {
            self.body.clear();
            self.body.extend_from_slice(levels);
            self.body.extend_from_slice(values);
            compressor.compress(self.codec, self.level, &self.body, &mut self.stored)?;
        }
        let stored = std::mem::take(&mut self.stored);
        let result = self.write_like_stored(template, levels.len() + values.len(), encoding, rows, &[&stored]);
        self.stored = stored;
        result
    }

    /// Writes a data page shaped like `template`, as [`write_like`](Self::write_like), whose
    /// stored bytes (already compressed with this writer's codec, v2 level bytes first) are
    /// `pieces` one after another, and which decompress to `uncompressed_len` bytes. The
    /// pieces go straight into the chunk: nothing is gathered first.
    pub fn write_like_stored(
        &mut self,
        template: &PageHeader,
        uncompressed_len: usize,
        encoding: Encoding,
        rows: usize,
        pieces: &[&[u8]],
    ) -> Result<()> {
        self.flush_deferred()?;
        let mut header = template.clone();
        if let Some(h) = header.data_page_header_v2.as_mut() {
            h.encoding = encoding;
            h.is_compressed = Some(self.codec != Codec::Uncompressed);
        }
        if let Some(h) = header.data_page_header.as_mut() {
            h.encoding = encoding;
        }
        let stored_len: usize = pieces.iter().map(|p| p.len()).sum();
        let too_big =
            || crate::error::Error::invalid_argument("a rewritten page does not fit the 32-bit sizes of its header");
        header.uncompressed_page_size = i32::try_from(uncompressed_len).map_err(|_| too_big())?;
        header.compressed_page_size = i32::try_from(stored_len).map_err(|_| too_big())?;
        if header.crc.is_some() || self.crc {
            let mut h = crc32fast::Hasher::new();
            pieces.iter().for_each(|p| h.update(p));
            header.crc = Some(h.finalize() as i32);
        }
        let start = self.pages.len();
        self.header.clear();
        thrift::encode(&header, &mut self.header);
        let header_len = self.header.len();
        let mut all: Vec<&[u8]> = Vec::with_capacity(pieces.len() + 1);
        all.push(&self.header);
        all.extend_from_slice(pieces);
        self.pages.push_page(&all);
        self.push_location(start, header_len, uncompressed_len, rows);
        let (num_values, encoding) = data_page_facts(&header);
        self.num_values += num_values;
        self.note(header.page_type, encoding);
        Ok(())
    }

    fn push_location(&mut self, start: usize, header_len: usize, uncompressed_len: usize, rows: usize) {
        self.locations.push(PageLocation {
            offset: (self.spilled_len + start as u64) as i64,
            compressed_page_size: (self.pages.len() - start) as i32,
            first_row_index: self.rows as i64,
        });
        self.uncompressed_size += (header_len + uncompressed_len) as u64;
        self.rows += rows as u64;
    }

    /// Compresses and stores the chunk's dictionary page (PLAIN values); it is written before
    /// the data pages whenever it is set.
    pub fn write_dictionary_page(
        &mut self,
        values: &[u8],
        num_values: usize,
        compressor: &mut Compressor,
    ) -> Result<()> {
        if self.codec == Codec::Uncompressed {
            // Stored as they are: no copy into the compressor's buffer first (30 MB a row
            // group for the `strings` dataset's `id`).
            return self.write_dictionary_page_stored(&[values], values.len(), num_values);
        }
        self.stored.clear();
        compressor.compress(self.codec, self.level, values, &mut self.stored)?;
        let stored = std::mem::take(&mut self.stored);
        let result = self.write_dictionary_page_stored(&[&stored], values.len(), num_values);
        self.stored = stored;
        result
    }

    /// Stores the chunk's dictionary page from bytes already compressed with this writer's
    /// codec (`pieces` one after another), which decompress to `uncompressed_len` bytes of
    /// `num_values` PLAIN values.
    pub fn write_dictionary_page_stored(
        &mut self,
        pieces: &[&[u8]],
        uncompressed_len: usize,
        num_values: usize,
    ) -> Result<()> {
        // The chunk lists its encodings in the order pages are written: the data pages kept
        // back came first.
        self.flush_deferred()?;
        let too_big =
            || crate::error::Error::invalid_argument("a dictionary page does not fit the 32-bit sizes of its header");
        let stored_len: usize = pieces.iter().map(|p| p.len()).sum();
        let crc = self.crc.then(|| {
            let mut h = crc32fast::Hasher::new();
            pieces.iter().for_each(|p| h.update(p));
            h.finalize() as i32
        });
        let header = PageHeader {
            uncompressed_page_size: i32::try_from(uncompressed_len).map_err(|_| too_big())?,
            compressed_page_size: i32::try_from(stored_len).map_err(|_| too_big())?,
            crc,
            dictionary_page_header: Some(DictionaryPageHeader {
                num_values: i32::try_from(num_values).map_err(|_| too_big())?,
                encoding: Encoding::PLAIN,
                is_sorted: Some(false),
            }),
            ..PageHeader::new(PageType::DICTIONARY_PAGE)
        };
        self.dictionary.clear();
        thrift::encode(&header, &mut self.dictionary);
        self.dictionary_uncompressed = self.dictionary.len() + uncompressed_len;
        pieces.iter().for_each(|p| self.dictionary.extend_from_slice(p));
        self.note(PageType::DICTIONARY_PAGE, Encoding::PLAIN);
        Ok(())
    }

    /// Bytes of the pages held in memory (headers included).
    pub fn buffered_bytes(&self) -> usize {
        self.dictionary.len() + self.pages.len() + self.deferred.as_ref().map_or(0, Deferred::pending_bytes)
    }

    /// Memory the pages held take, for a bound on it: [`buffered_bytes`](Self::buffered_bytes)
    /// with their blocks counted whole.
    pub fn held_bytes(&self) -> usize {
        self.dictionary.capacity()
            + self.pages.held_capacity()
            + self.deferred.as_ref().map_or(0, Deferred::pending_bytes)
    }

    /// Moves the data pages held in memory to `file` (they are copied back in order when the
    /// chunk is written); the dictionary page stays, as it must come first.
    pub fn spill(&mut self, file: &mut SpillFile) -> Result<()> {
        self.flush_deferred()?;
        for block in self.pages.blocks() {
            self.spilled.push(file.append(block)?);
        }
        self.spilled_len += self.pages.len() as u64;
        self.pages.clear();
        self.pages.release_spares();
        Ok(())
    }

    /// Whether pages were spilled in this chunk (after which [`drain`](Self::drain) would put
    /// pages before the spilled ones).
    pub fn has_spilled(&self) -> bool {
        !self.spilled.is_empty()
    }

    /// Hands the pages held so far to `put` in file order (the dictionary page first, the
    /// first time) and forgets them, keeping their blocks for the next pages: a chunk written
    /// this way holds only the pages since the last call, in memory that is already mapped
    /// and likely in cache. The dictionary page, if any, must be set before the first call.
    pub fn drain(&mut self, mut put: impl FnMut(&[u8]) -> Result<()>) -> Result<()> {
        let (dictionary, pages) = self.drain_blocks()?;
        put(&dictionary)?;
        pages.blocks().iter().try_for_each(|block| put(block))?;
        self.pages.recycle(pages);
        Ok(())
    }

    /// Moves out the pages held so far as [`drain`](Self::drain) hands them out: the
    /// dictionary page (empty after the first time) and the data pages, to be written in
    /// that order before the rest of the chunk. Pages still being compressed on the
    /// writer's threads (see [`defer_compression`](Self::defer_compression)) stay for the
    /// next call or the chunk's end: the column goes on encoding meanwhile.
    pub fn drain_blocks(&mut self) -> Result<(Vec<u8>, PageBlocks)> {
        if let Some(deferred) = self.deferred.as_mut() {
            let pages = deferred.ready(self.codec, self.level)?;
            self.append_compressed(pages)?;
        }
        let dictionary = std::mem::take(&mut self.dictionary);
        self.dictionary_drained += dictionary.len();
        self.spilled_len += self.pages.len() as u64;
        Ok((dictionary, self.pages.take()))
    }

    /// The writer's blocks, held and spare, for the next writer to [`recycle`](Self::recycle).
    pub fn into_blocks(self) -> PageBlocks {
        self.pages
    }

    /// Gives back a written chunk's blocks, so the next chunk writes into memory that is
    /// already mapped.
    pub fn recycle(&mut self, blocks: PageBlocks) {
        self.pages.recycle(blocks);
    }

    /// Moves out the blocks that hold no page, for another writer to
    /// [`recycle`](Self::recycle).
    pub fn take_spare_blocks(&mut self) -> PageBlocks {
        self.pages.take_spare()
    }

    /// Number of data pages so far.
    pub fn data_pages(&self) -> usize {
        self.locations.len() + self.deferred.as_ref().map_or(0, Deferred::pages)
    }

    /// Ends the chunk: the pages in file order and what its metadata needs. The writer is
    /// ready for the next chunk.
    pub fn finish(&mut self) -> Result<FinishedChunk> {
        self.flush_deferred()?;
        let dictionary = std::mem::take(&mut self.dictionary);
        let dictionary_len = dictionary.len() + std::mem::take(&mut self.dictionary_drained);
        let pages = self.pages.take();
        let mut locations = std::mem::take(&mut self.locations);
        for l in &mut locations {
            l.offset += dictionary_len as i64;
        }
        let chunk = FinishedChunk {
            compressed_size: dictionary_len as u64 + self.spilled_len + pages.len() as u64,
            dictionary,
            dictionary_len,
            spilled: std::mem::take(&mut self.spilled),
            pages,
            locations,
            encodings: std::mem::take(&mut self.encodings),
            encoding_stats: std::mem::take(&mut self.encoding_stats),
            uncompressed_size: self.uncompressed_size + self.dictionary_uncompressed as u64,
            num_values: self.num_values,
        };
        self.uncompressed_size = 0;
        self.spilled_len = 0;
        self.dictionary_uncompressed = 0;
        self.num_values = 0;
        self.rows = 0;
        Ok(chunk)
    }
}

/// The error of a page size or count past its header's 32-bit field.
fn too_big(what: &str, n: usize) -> crate::error::Error {
    crate::error::Error::invalid_argument(format!(
        "a data page's {what} ({n}) does not fit the 32-bit fields of its header"
    ))
}

/// A data page header's value count and value encoding.
fn data_page_facts(header: &PageHeader) -> (u64, Encoding) {
    match (&header.data_page_header, &header.data_page_header_v2) {
        (Some(h), _) => (h.num_values.max(0) as u64, h.encoding),
        (None, Some(h)) => (h.num_values.max(0) as u64, h.encoding),
        _ => (0, Encoding::PLAIN),
    }
}

/// A finished column chunk's pages and sizes; page offsets are relative to the chunk start.
#[derive(Debug)]
pub struct FinishedChunk {
    /// The dictionary page (header included), empty without one or when
    /// [`PageWriter::drain`] handed it out already; it comes first in the file.
    pub dictionary: Vec<u8>,
    /// Bytes of the dictionary page, held or drained (0 without one).
    pub dictionary_len: usize,
    /// Data pages spilled to a [`SpillFile`], in order; they come before `pages`.
    pub spilled: Vec<Segment>,
    /// The data pages held in memory, headers included, in order.
    pub pages: PageBlocks,
    /// Where each data page starts, relative to the chunk start.
    pub locations: Vec<PageLocation>,
    /// Every encoding the chunk uses.
    pub encodings: Vec<Encoding>,
    /// Page counts per type and encoding.
    pub encoding_stats: Vec<PageEncodingStats>,
    /// Bytes of all pages uncompressed, headers included.
    pub uncompressed_size: u64,
    /// Bytes of all pages as stored.
    pub compressed_size: u64,
    /// Level entries of all data pages.
    pub num_values: u64,
}
