//! Datasets: many files read as one table (`RawDataset`, wrapped by Python's
//! `parquetry.ParquetDataset` and used by `read_table` on folders, globs and lists).

use std::sync::Arc;

use parquetry::dataset::{Dataset, DatasetBuilder, Partitioning};
use parquetry::read::ReadOptions;
use pyo3::prelude::*;

use crate::errors::{invalid, IntoPy};
use crate::ffi::{ArrowSchema, ArrowStream};

/// An opened dataset: its files listed and their footers read once.
#[pyclass(module = "parquetry._parquetry", name = "RawDataset", frozen)]
pub struct RawDataset {
    dataset: Dataset,
}

/// Opens a dataset of `sources` (files, folders, globs). `partitioning` is `"hive"`,
/// `"directory"` (folders are the values of `partition_keys`, in order) or `None`;
/// `partition_schema` types partition keys; `schema` is read for every file;
/// `ignore_prefixes` replaces `_` and `.` as the prefixes of names that are not data.
#[pyfunction]
#[pyo3(signature = (sources, partitioning=Some("hive"), partition_schema=None, schema=None, threads=1, storage_options=None, partition_keys=None, ignore_prefixes=None))]
#[allow(clippy::too_many_arguments)]
pub fn open_dataset(
    py: Python<'_>,
    sources: Vec<String>,
    partitioning: Option<&str>,
    partition_schema: Option<Bound<'_, PyAny>>,
    schema: Option<Bound<'_, PyAny>>,
    threads: usize,
    storage_options: Option<Vec<(String, String)>>,
    partition_keys: Option<Vec<String>>,
    ignore_prefixes: Option<Vec<String>>,
) -> PyResult<RawDataset> {
    let options: parquetry::store::StorageOptions = storage_options.unwrap_or_default().into_iter().collect();
    let mut builder = DatasetBuilder::new(sources).with_threads(threads).with_storage_options(options);
    builder = builder.with_partitioning(match partitioning {
        Some("hive") => Partitioning::Hive,
        Some("directory") => Partitioning::Directory(
            partition_keys.ok_or_else(|| invalid("directory partitioning needs the keys' names"))?,
        ),
        None => Partitioning::None,
        Some(other) => return Err(invalid(format!("partitioning must be 'hive', 'directory' or None, not {other:?}"))),
    });
    if let Some(prefixes) = ignore_prefixes {
        builder = builder.with_ignore_prefixes(prefixes);
    }
    if let Some(p) = partition_schema {
        builder = builder.with_partition_fields(crate::write::import_schema(&p)?.fields().iter().cloned());
    }
    if let Some(s) = schema {
        builder = builder.with_schema(Arc::new(crate::write::import_schema(&s)?));
    }
    let dataset = py.detach(|| builder.build()).py_err()?;
    Ok(RawDataset { dataset })
}

/// Read options from the Python side; `filter` is a condition in the text form of
/// `parquetry::filter::parse`.
fn options(
    columns: Option<Vec<String>>,
    filter: Option<&str>,
    threads: usize,
    binary_type: Option<&str>,
    batch_size: usize,
) -> PyResult<ReadOptions> {
    let mut o = crate::read::options(None, filter, None, threads, binary_type, batch_size, false, None)?;
    if let Some(columns) = columns {
        o = o.with_columns(columns);
    }
    Ok(o)
}

#[pymethods]
impl RawDataset {
    /// The dataset's Arrow schema (file columns, then partition columns).
    fn schema(&self) -> ArrowSchema {
        ArrowSchema(self.dataset.schema())
    }

    /// The files' paths, in read order.
    fn files(&self) -> Vec<String> {
        self.dataset.files().iter().map(|f| f.path().display().to_string()).collect()
    }

    /// The partition columns' names.
    fn partition_names(&self) -> Vec<String> {
        self.dataset.partition_fields().iter().map(|f| f.name().clone()).collect()
    }

    /// Object store requests and bytes so far (footers and reads of every file).
    fn request_stats(&self) -> (u64, u64) {
        let s = self.dataset.request_stats();
        (s.requests(), s.bytes())
    }

    /// Total rows, from the footers.
    fn num_rows(&self) -> u64 {
        self.dataset.num_rows()
    }

    /// The indexes of the files whose partition values let `filter` match.
    fn prune(&self, filter: &str) -> PyResult<Vec<usize>> {
        let predicate = parquetry::filter::parse(filter).py_err()?;
        self.dataset.prune(&predicate).py_err()
    }

    /// A dataset of only these files.
    fn select_files(&self, indexes: Vec<usize>) -> PyResult<RawDataset> {
        Ok(RawDataset { dataset: self.dataset.select_files(&indexes).py_err()? })
    }

    /// Reads everything selected with the GIL released, files on `threads` threads.
    #[pyo3(signature = (columns=None, filter=None, threads=1, binary_type=None))]
    fn read_all(
        &self,
        py: Python<'_>,
        columns: Option<Vec<String>>,
        filter: Option<&str>,
        threads: usize,
        binary_type: Option<&str>,
    ) -> PyResult<ArrowStream> {
        let o = options(columns, filter, threads, binary_type, 65_536)?;
        let reader = self.dataset.reader(o.clone()).py_err()?;
        let schema = arrow_array::RecordBatchReader::schema(&reader);
        let batches = py.detach(|| self.dataset.read_all(o.with_reads_all(true))).py_err()?;
        Ok(ArrowStream::from_batches(schema, batches))
    }

    /// A lazy stream of batches, file after file.
    #[pyo3(signature = (columns=None, filter=None, threads=1, binary_type=None, batch_size=65536))]
    fn stream(
        &self,
        py: Python<'_>,
        columns: Option<Vec<String>>,
        filter: Option<&str>,
        threads: usize,
        binary_type: Option<&str>,
        batch_size: usize,
    ) -> PyResult<ArrowStream> {
        let o = options(columns, filter, threads, binary_type, batch_size)?;
        let reader = py.detach(|| self.dataset.reader(o)).py_err()?;
        Ok(ArrowStream::new(Box::new(reader)))
    }
}

/// Compacts the dataset under `root` (see `parquetry::dataset::compact`); returns what was
/// done (or, with `dry_run`, planned) as a dict.
#[pyfunction]
#[pyo3(signature = (root, target_file_size=134_217_728, dry_run=false, threads=1))]
pub fn compact<'py>(
    py: Python<'py>,
    root: std::path::PathBuf,
    target_file_size: u64,
    dry_run: bool,
    threads: usize,
) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
    use parquetry::dataset::compact::{compact, CompactOptions};
    let mut options = CompactOptions { target_file_size, dry_run, ..Default::default() };
    options.merge = options.merge.with_threads(threads.max(1));
    let summary = py.detach(|| compact(&root, &options)).py_err()?;
    summary_dict(py, &summary)
}

/// Compacts the dataset under the object store URL `root` (see
/// `parquetry::dataset::compact_store`); returns what `compact` returns.
#[pyfunction]
#[pyo3(signature = (root, target_file_size=134_217_728, dry_run=false, threads=1, storage_options=None))]
pub fn compact_url<'py>(
    py: Python<'py>,
    root: String,
    target_file_size: u64,
    dry_run: bool,
    threads: usize,
    storage_options: Option<Vec<(String, String)>>,
) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
    use parquetry::dataset::compact::CompactOptions;
    let storage: parquetry::store::StorageOptions = storage_options.unwrap_or_default().into_iter().collect();
    let mut options = CompactOptions { target_file_size, dry_run, ..Default::default() };
    options.merge = options.merge.with_threads(threads.max(1));
    let summary = py.detach(|| parquetry::dataset::compact_store::compact_url(&root, &options, &storage)).py_err()?;
    summary_dict(py, &summary)
}

/// A compaction's summary as the dict `parquetry.compact` returns.
fn summary_dict<'py>(
    py: Python<'py>,
    summary: &parquetry::dataset::compact::CompactionSummary,
) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
    let d = pyo3::types::PyDict::new(py);
    d.set_item("partitions", summary.partitions)?;
    d.set_item("files_before", summary.files_before)?;
    d.set_item("files_after", summary.files_after)?;
    d.set_item("recovered", summary.recovered)?;
    let groups: Vec<(String, Vec<String>, u64)> = summary
        .groups
        .iter()
        .map(|g| (g.output.display().to_string(), g.inputs.iter().map(|p| p.display().to_string()).collect(), g.bytes))
        .collect();
    d.set_item("merges", groups)?;
    Ok(d)
}

/// Merges one planned group (`inputs` into `output`) with its journal, as `compact` does:
/// for schedulers that run one group per task.
#[pyfunction]
#[pyo3(signature = (inputs, output, threads=1))]
pub fn compact_group(
    py: Python<'_>,
    inputs: Vec<std::path::PathBuf>,
    output: std::path::PathBuf,
    threads: usize,
) -> PyResult<()> {
    use parquetry::dataset::compact::CompactionGroup;
    let group = CompactionGroup { inputs, output, bytes: 0 };
    let merge = parquetry::merge::MergeOptions::default().with_threads(threads.max(1));
    py.detach(|| parquetry::dataset::compact::compact_group(&group, &merge)).py_err()
}

/// Merges one planned group of objects (`inputs` into `output`, URLs) with its journal, as
/// `compact_url` does (see `parquetry::dataset::compact_store::compact_group_url`): for
/// schedulers that run one partition per task.
#[pyfunction]
#[pyo3(signature = (inputs, output, threads=1, storage_options=None))]
pub fn compact_group_url(
    py: Python<'_>,
    inputs: Vec<String>,
    output: String,
    threads: usize,
    storage_options: Option<Vec<(String, String)>>,
) -> PyResult<()> {
    use parquetry::dataset::compact::CompactionGroup;
    let storage: parquetry::store::StorageOptions = storage_options.unwrap_or_default().into_iter().collect();
    let inputs = inputs.into_iter().map(std::path::PathBuf::from).collect();
    let group = CompactionGroup { inputs, output: std::path::PathBuf::from(output), bytes: 0 };
    let merge = parquetry::merge::MergeOptions::default().with_threads(threads.max(1));
    py.detach(|| parquetry::dataset::compact_store::compact_group_url(&group, &merge, &storage)).py_err()
}

/// Finishes what an interrupted compaction under the object store URL `root` left; returns
/// how many journals.
#[pyfunction]
#[pyo3(signature = (root, storage_options=None))]
pub fn compact_recover_url(
    py: Python<'_>,
    root: String,
    storage_options: Option<Vec<(String, String)>>,
) -> PyResult<usize> {
    let storage: parquetry::store::StorageOptions = storage_options.unwrap_or_default().into_iter().collect();
    py.detach(|| parquetry::dataset::compact_store::recover_url(&root, &storage)).py_err()
}

/// Finishes what an interrupted compaction under `root` left; returns how many merges.
#[pyfunction]
pub fn compact_recover(py: Python<'_>, root: std::path::PathBuf) -> PyResult<usize> {
    py.detach(|| parquetry::dataset::compact::recover(&root)).py_err()
}
