//! The Parquet schema as a tree, the leaf column descriptors, and the mapping to Arrow.
//!
//! The footer stores the schema as a depth-first list of [`SchemaElement`]s where each group
//! says how many children follow. [`SchemaDescriptor::new`] rebuilds the tree once, validating
//! the counts, and computes for every leaf what readers need: its path and its maximum
//! definition and repetition levels.

mod arrow;
mod arrow_hint;
mod sort_order;

pub use arrow::{arrow_schema, leaf_arrow_type};
pub(crate) use arrow::{is_list, is_map, repeated_is_element};
pub use arrow_hint::{encode_arrow_schema, ARROW_SCHEMA_KEY};
pub use sort_order::SortOrder;

use crate::error::{Error, Result};
use crate::format::{ConvertedType, FileMetaData, LogicalType, PhysicalType, Repetition, SchemaElement};

/// No real schema nests anywhere near this deep; the bound keeps a hostile schema from
/// exhausting the stack when the tree is walked recursively.
pub const MAX_SCHEMA_DEPTH: usize = 128;

/// One node of the schema tree.
#[derive(Debug, Clone, PartialEq)]
pub struct SchemaNode {
    /// Index of this node's element in [`SchemaDescriptor::elements`].
    pub element: usize,
    /// Children, for groups; empty for leaves.
    pub children: Vec<SchemaNode>,
    /// For leaves, the index of the leaf column (the column chunk index in each row group).
    pub leaf: Option<usize>,
    /// Maximum definition level of this node (counts optional and repeated ancestors and self).
    pub max_def_level: i16,
    /// Maximum repetition level of this node (counts repeated ancestors and self).
    pub max_rep_level: i16,
}

/// What a reader needs to know about one leaf column.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnDescriptor {
    /// Names from the root's child down to the leaf.
    pub path: Vec<String>,
    /// The physical type.
    pub physical_type: PhysicalType,
    /// For FIXED_LEN_BYTE_ARRAY, the width of each value; 0 otherwise.
    pub type_length: i32,
    /// The modern logical annotation, if any.
    pub logical_type: Option<LogicalType>,
    /// The legacy annotation, if any.
    pub converted_type: Option<ConvertedType>,
    /// Legacy decimal scale (0 if absent).
    pub scale: i32,
    /// Legacy decimal precision (0 if absent).
    pub precision: i32,
    /// The leaf's own repetition.
    pub repetition: Repetition,
    /// Maximum definition level: a value is non-null exactly when its level equals this.
    pub max_def_level: i16,
    /// Maximum repetition level: 0 for columns outside any list.
    pub max_rep_level: i16,
    /// Index of the leaf's element in [`SchemaDescriptor::elements`].
    pub element: usize,
}

impl ColumnDescriptor {
    /// The dotted path, e.g. `a.b.c`, as users name columns.
    pub fn dotted_path(&self) -> String {
        self.path.join(".")
    }
}

/// The schema tree of a file and its leaf columns.
#[derive(Debug, Clone, PartialEq)]
pub struct SchemaDescriptor {
    /// The flattened elements, as in the footer.
    pub elements: Vec<SchemaElement>,
    /// The root group.
    pub root: SchemaNode,
    /// The leaves, in the order of the column chunks of each row group.
    pub columns: Vec<ColumnDescriptor>,
}

impl SchemaDescriptor {
    /// Rebuilds the tree from the footer's elements, checking child counts and nesting.
    pub fn new(elements: Vec<SchemaElement>) -> Result<Self> {
        if elements.is_empty() {
            return Err(Error::corrupt("schema: the schema has no root element"));
        }
        let mut builder = Builder { elements: &elements, next: 0, columns: Vec::new() };
        let mut path = Vec::new();
        let root = builder.node(0, 0, 0, &mut path)?;
        if builder.next != elements.len() {
            return Err(Error::corrupt(format!(
                "schema: {} elements follow the end of the root group's children",
                elements.len() - builder.next
            )));
        }
        if root.leaf.is_some() {
            return Err(Error::corrupt("schema: the root element is a leaf, not a group"));
        }
        let columns = builder.columns;
        Ok(SchemaDescriptor { elements, root, columns })
    }

    /// Builds the descriptor of a footer and checks that every row group has one column chunk
    /// per leaf with the leaf's physical type.
    pub fn from_metadata(meta: &FileMetaData) -> Result<Self> {
        let desc = Self::new(meta.schema.clone())?;
        for (i, rg) in meta.row_groups.iter().enumerate() {
            if rg.columns.len() != desc.columns.len() {
                return Err(Error::corrupt(format!(
                    "row group {i} has {} column chunks but the schema has {} leaf columns",
                    rg.columns.len(),
                    desc.columns.len()
                )));
            }
            for (j, chunk) in rg.columns.iter().enumerate() {
                if let Some(m) = &chunk.meta_data {
                    let want = desc.columns[j].physical_type;
                    if m.physical_type != want {
                        return Err(Error::corrupt(format!(
                            "row group {i}, column {j} ('{}'): chunk type {} differs from the \
                             schema's {want}",
                            desc.columns[j].dotted_path(),
                            m.physical_type
                        )));
                    }
                }
            }
        }
        Ok(desc)
    }

    /// The element of a node.
    pub fn element(&self, node: &SchemaNode) -> &SchemaElement {
        &self.elements[node.element]
    }

    /// Finds a leaf column by its dotted path (`a.b.c`).
    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.dotted_path() == name)
    }
}

struct Builder<'a> {
    elements: &'a [SchemaElement],
    next: usize,
    columns: Vec<ColumnDescriptor>,
}

impl Builder<'_> {
    fn node(&mut self, depth: usize, parent_def: i16, parent_rep: i16, path: &mut Vec<String>) -> Result<SchemaNode> {
        if depth > MAX_SCHEMA_DEPTH {
            return Err(Error::corrupt(format!("schema: nesting deeper than {MAX_SCHEMA_DEPTH} levels")));
        }
        let index = self.next;
        let Some(e) = self.elements.get(index) else {
            return Err(Error::corrupt(format!(
                "schema: a group promises more children than the {} elements hold",
                self.elements.len()
            )));
        };
        self.next += 1;
        let (mut def, mut rep) = (parent_def, parent_rep);
        // The root's repetition is meaningless (often REQUIRED, sometimes absent).
        if depth > 0 {
            match e.repetition {
                Some(Repetition::OPTIONAL) => def += 1,
                Some(Repetition::REPEATED) => {
                    def += 1;
                    rep += 1;
                }
                _ => {}
            }
        }
        let num_children = e.num_children.unwrap_or(0);
        if num_children < 0 {
            return Err(Error::corrupt(format!(
                "schema element {index} ('{}'): negative child count {num_children}",
                e.name
            )));
        }
        let is_leaf = num_children == 0 && e.physical_type.is_some() && depth > 0;
        if depth > 0 {
            path.push(e.name.clone());
        }
        let mut node =
            SchemaNode { element: index, children: Vec::new(), leaf: None, max_def_level: def, max_rep_level: rep };
        if is_leaf {
            let physical_type = e.physical_type.unwrap_or(PhysicalType::BYTE_ARRAY);
            let type_length = e.type_length.unwrap_or(0);
            if physical_type == PhysicalType::FIXED_LEN_BYTE_ARRAY && type_length <= 0 {
                return Err(Error::corrupt(format!(
                    "schema element {index} ('{}'): FIXED_LEN_BYTE_ARRAY needs a positive \
                     type_length, found {type_length}",
                    e.name
                )));
            }
            node.leaf = Some(self.columns.len());
            self.columns.push(ColumnDescriptor {
                path: path.clone(),
                physical_type,
                type_length,
                logical_type: e.logical_type.clone(),
                converted_type: e.converted_type,
                scale: e.scale.unwrap_or(0),
                precision: e.precision.unwrap_or(0),
                repetition: e.repetition.unwrap_or(Repetition::REQUIRED),
                max_def_level: def,
                max_rep_level: rep,
                element: index,
            });
        } else {
            // Each child takes at least one element: reserve no more than what is left.
            let left = self.elements.len() - self.next;
            if num_children as usize > left {
                return Err(Error::corrupt(format!(
                    "schema element {index} ('{}') claims {num_children} children but only \
                     {left} elements follow",
                    e.name
                )));
            }
            node.children.reserve(num_children as usize);
            for _ in 0..num_children {
                node.children.push(self.node(depth + 1, def, rep, path)?);
            }
        }
        if depth > 0 {
            path.pop();
        }
        Ok(node)
    }
}
