//! A column chunk's pages in memory: a list of blocks of about 4 MiB, instead of one buffer
//! grown by doubling. Growing a 100 MB buffer copies it at every doubling and faults in fresh
//! memory for each new size (a quarter of a snappy write went to the kernel zeroing those
//! pages); blocks of one size are reused by the allocator from one chunk, and one run, to the
//! next. A page is copied whole into one block, except a big uncompressed page, whose values
//! buffer becomes a block of its own after its header's ([`PageBlocks::push_page_owning`]).
//! The blocks are only ever written out one after another.

/// Pages held in memory, in order, as blocks of bytes.
#[derive(Debug, Default)]
pub struct PageBlocks {
    blocks: Vec<Vec<u8>>,
    len: usize,
    spare: Vec<Vec<u8>>,
}

/// The size of a block; a page larger than this gets a block of its own size.
const BLOCK: usize = 4 << 20;

/// The most spare blocks kept: more than any writer reuses (a row group's chunks hand theirs
/// back to one list), and a bound if some path hands back more than it takes.
const SPARE_MAX: usize = 256;

/// The size of a block for a page's header and levels alone, before its body's block.
const HEAD_BLOCK: usize = 4 << 10;

impl PageBlocks {
    /// Bytes held.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no page is held.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Memory the pages hold: the capacity of their blocks, the unfilled tail of the last one
    /// included (a bound on memory must count it: three columns' 4 MiB blocks hold up to
    /// 12 MiB more than their pages).
    pub fn held_capacity(&self) -> usize {
        self.blocks.iter().map(Vec::capacity).sum()
    }

    /// Drops the spare blocks but one (after a spill, under a memory bound: the blocks the
    /// spilled pages were in are not needed again until the next spill).
    pub fn release_spares(&mut self) {
        self.spare.truncate(1);
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

    /// Appends one page made of the `head` pieces (header, levels) and the bytes of `body`,
    /// which becomes a block of its own instead of being copied into one: a big page's values
    /// are then copied once, into the file, not also into a block (strings_plain_none written
    /// in 86 ms against 94, strings_delta_length_none 85 against 95). `body` is left empty,
    /// holding a spare block of about its old capacity (or none), for the next page's values.
    pub fn push_page_owning(&mut self, head: &[&[u8]], body: &mut Vec<u8>) {
        let head_len: usize = head.iter().map(|p| p.len()).sum();
        let fits = self.blocks.last().is_some_and(|b| b.capacity() - b.len() >= head_len);
        if !fits {
            // The body follows the head in a block of its own, so the head's block holds
            // nothing else: a small one, not a whole spare block.
            self.blocks.push(Vec::with_capacity(head_len.max(HEAD_BLOCK)));
        }
        if let Some(block) = self.blocks.last_mut() {
            head.iter().for_each(|p| block.extend_from_slice(p));
        }
        self.len += head_len + body.len();
        // A spare that the body's values fit without growing, and not much larger (a 4 MiB
        // block holding a 1 MiB page would keep the rest idle while the page is held).
        let (want, most) = (body.len(), body.capacity().saturating_mul(2));
        let spare = self.spare.iter().position(|b| (want..=most).contains(&b.capacity()));
        let mut next = spare.map(|i| self.spare.swap_remove(i)).unwrap_or_default();
        next.clear();
        self.blocks.push(std::mem::replace(body, next));
    }

    /// Forgets the pages, keeping their blocks for reuse.
    pub fn clear(&mut self) {
        self.spare.append(&mut self.blocks);
        self.spare.truncate(SPARE_MAX);
        self.len = 0;
    }

    /// Takes the blocks of `other` (a written chunk's) for reuse.
    pub fn recycle(&mut self, mut other: PageBlocks) {
        self.spare.append(&mut other.blocks);
        self.spare.append(&mut other.spare);
        self.spare.truncate(SPARE_MAX);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owned_bodies_and_copied_pages_keep_their_order() {
        // Copied pages, taken bodies (with and without room after them for the next head),
        // and a recycled round, against the pieces written one after another.
        let mut blocks = PageBlocks::default();
        for round in 0..3 {
            let mut want = Vec::new();
            for page in 0..40usize {
                let head = vec![page as u8; 1 + page % 7];
                let mut body: Vec<u8> = (0..(page * 997) % 70_000).map(|i| (i * 31 + page) as u8).collect();
                body.reserve(page % 3 * 50);
                want.extend_from_slice(&head);
                want.extend_from_slice(&body);
                if page % 4 == 0 {
                    blocks.push_page(&[&head, &body]);
                } else {
                    blocks.push_page_owning(&[&head[..1], &head[1..]], &mut body);
                    assert!(body.is_empty(), "round {round}, page {page}");
                }
            }
            assert_eq!(blocks.len(), want.len());
            assert_eq!(blocks.blocks().concat(), want, "round {round}");
            blocks.clear();
        }
    }
}
