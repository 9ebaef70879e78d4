//! Temporary files: one beside an output, renamed into place only once complete (how every
//! output of the library and the CLI appears), and scratch files for spilled pages. Both are
//! removed when dropped unless persisted.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, Result};

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A file created next to a destination; dropped without [`TempFile::persist`], it is deleted.
#[derive(Debug)]
pub struct TempFile {
    path: PathBuf,
    persisted: bool,
}

impl TempFile {
    /// Creates an empty, uniquely named hidden file in `dest`'s directory (so that the final
    /// rename stays on one file system and is atomic).
    pub fn beside(dest: &Path) -> Result<Self> {
        let dir = match dest.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = dest.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        for _ in 0..16 {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let nanos =
                std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
            let path = dir.join(format!(".{name}.{}.{n}.{nanos}.tmp", std::process::id()));
            match OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(_) => return Ok(TempFile { path, persisted: false }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(Error::io(format!("creating a temporary file in {}", dir.display()), e)),
            }
        }
        Err(Error::invalid_argument(format!("could not find a free temporary file name in {}", dir.display())))
    }

    /// The temporary file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A scratch file in the system's temporary directory (`TMPDIR`), removed when dropped.
    pub fn scratch() -> Result<Self> {
        Self::beside(&std::env::temp_dir().join("parquetry-scratch"))
    }

    /// Opens the temporary file for reading and writing.
    pub fn open_read_write(&self) -> Result<File> {
        OpenOptions::new()
            .read(true)
            .write(true)
            .open(&self.path)
            .map_err(|e| Error::io(format!("opening {}", self.path.display()), e))
    }

    /// Opens the temporary file for writing. Not with `O_TRUNC`: the file is new and empty,
    /// and truncating it marks it on ext4 for a write-back of the whole file at `close()`,
    /// which took 50–90 ms of a 130 ms merge of 160 MB.
    pub fn file(&self) -> Result<File> {
        OpenOptions::new()
            .write(true)
            .open(&self.path)
            .map_err(|e| Error::io(format!("opening {}", self.path.display()), e))
    }

    /// Renames the temporary file to `dest`, replacing what was there.
    pub fn persist(mut self, dest: &Path) -> Result<()> {
        std::fs::rename(&self.path, dest)
            .map_err(|e| Error::io(format!("renaming {} to {}", self.path.display(), dest.display()), e))?;
        self.persisted = true;
        Ok(())
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.persisted {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}
