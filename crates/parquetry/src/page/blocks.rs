//! A column chunk's pages in memory: a list of blocks of about 4 MiB, each page whole inside
//! one block, instead of one buffer grown by doubling. Growing a 100 MB buffer copies it at
//! every doubling and faults in fresh memory for each new size (a quarter of a snappy write
//! went to the kernel zeroing those pages); blocks of one size are reused by the allocator
//! from one chunk, and one run, to the next.

/// Pages held in memory, in order, as blocks of bytes.
#[derive(Debug, Default)]
pub struct PageBlocks {
    blocks: Vec<Vec<u8>>,
    len: usize,
    spare: Vec<Vec<u8>>,
}

/// The size of a block; a page larger than this gets a block of its own size.
const BLOCK: usize = 4 << 20;

impl PageBlocks {
    /// Bytes held.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no page is held.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The blocks, in order; written one after the other they are the pages.
    pub fn blocks(&self) -> &[Vec<u8>] {
        &self.blocks
    }

    /// Appends one page (its pieces in order) inside a single block.
    pub fn push_page(&mut self, pieces: &[&[u8]]) {
        let need: usize = pieces.iter().map(|p| p.len()).sum();
        let fits = self.blocks.last().is_some_and(|b| b.capacity() - b.len() >= need);
        if !fits {
            let block = match self.spare.pop() {
                Some(mut b) if b.capacity() >= need => {
                    b.clear();
                    b
                }
                _ => Vec::with_capacity(need.max(BLOCK)),
            };
            self.blocks.push(block);
        }
        if let Some(block) = self.blocks.last_mut() {
            pieces.iter().for_each(|p| block.extend_from_slice(p));
        }
        self.len += need;
    }

    /// Forgets the pages, keeping their blocks for reuse.
    pub fn clear(&mut self) {
        self.spare.append(&mut self.blocks);
        self.len = 0;
    }

    /// Takes the blocks of `other` (a written chunk's) for reuse.
    pub fn recycle(&mut self, mut other: PageBlocks) {
        self.spare.append(&mut other.blocks);
        self.spare.append(&mut other.spare);
    }

    /// Moves the spare blocks out, leaving the pages here.
    pub fn take_spare(&mut self) -> PageBlocks {
        PageBlocks { blocks: Vec::new(), len: 0, spare: std::mem::take(&mut self.spare) }
    }

    /// Moves the pages out, leaving the spare blocks here.
    pub fn take(&mut self) -> PageBlocks {
        let taken = PageBlocks { blocks: std::mem::take(&mut self.blocks), len: self.len, spare: Vec::new() };
        self.len = 0;
        taken
    }
}
