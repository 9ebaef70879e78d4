//! Planning the read of a field: which leaf columns it takes, read how, and the shape its
//! array is assembled into.
//!
//! A flat top-level column is one leaf read straight into its array. A struct, list or map
//! is a tree of [`Node`]s over the Parquet schema, walked beside the field's Arrow type (which
//! the `ARROW:schema` entry may have refined into large lists, fixed-size lists or other
//! leaf types). Leaves inside a list are read with their levels, and so is the first leaf of
//! a struct that can be null (the struct's validity comes from it); the assembly
//! (`assemble.rs`) turns those into offsets and validity. Every other leaf reads as a flat
//! column does: outside lists a leaf has one value per row whatever its parents.

use arrow_schema::{DataType, Field, FieldRef, Fields};
use std::sync::Arc;

use super::column::ColumnPlan;
use super::leaf_type::leaf_type;
use super::options::ReadOptions;
use crate::error::{Error, Result};
use crate::format::Repetition;
use crate::schema::{is_list, is_map, repeated_is_element, SchemaDescriptor, SchemaNode};

/// How one selected top-level field is read.
#[derive(Debug, Clone)]
pub(crate) struct FieldPlan {
    /// The output field (pruned to the selected leaves).
    pub field: Field,
    /// The array's shape.
    pub node: Node,
}

/// The shape of an array to assemble from leaf columns.
#[derive(Debug, Clone)]
pub(crate) enum Node {
    /// A leaf column: the batch's column reader at this position.
    Leaf { reader: usize },
    /// A struct: its children, and the definition level at which it is valid (below it, at a
    /// level where it has a slot, it is null: its parents are).
    Struct { fields: Fields, children: Vec<Node>, def: i16 },
    /// A list or map: valid at definition level `def` (if nullable); an element at each level
    /// at or above `elem_def` that does not repeat an outer list (repetition ≤ `rep`).
    List { field: FieldRef, kind: ListKind, element: Box<Node>, def: i16, nullable: bool, rep: i16, elem_def: i16 },
}

/// The Arrow layout of a [`Node::List`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ListKind {
    /// `List`: i32 offsets.
    List,
    /// `LargeList`: i64 offsets.
    Large,
    /// `FixedSizeList` of this many elements (stored in Parquet as a plain list).
    Fixed(i32),
    /// `Map`: a list of key/value structs.
    Map { sorted: bool },
}

/// Where a node sits: the definition level at which its array has a slot (the element level
/// of the innermost list around it, or 0), whether it is inside a list (every leaf needs its
/// levels), and whether its first leaf needs them for a struct around it that can be null.
#[derive(Clone, Copy)]
struct Context {
    slot_def: i16,
    in_list: bool,
    first_leaf_levels: bool,
}

/// Builds the plans of the top-level fields `fields` (positions in `arrow`'s fields), with
/// only the leaves `selected` accepts, appending one column plan per leaf read to `leaves`.
/// A field with no selected leaf is left out.
pub(crate) fn plan_fields(
    schema: &SchemaDescriptor,
    arrow: &arrow_schema::Schema,
    fields: &[usize],
    selected: &dyn Fn(usize) -> bool,
    options: &ReadOptions,
    leaves: &mut Vec<ColumnPlan>,
) -> Result<Vec<FieldPlan>> {
    let mut plans = Vec::with_capacity(fields.len());
    for &i in fields {
        let field = arrow.field(i);
        let node = &schema.root.children[i];
        let mut planner = Planner { schema, options, selected, leaves: &mut *leaves };
        let top = Context { slot_def: 0, in_list: false, first_leaf_levels: false };
        if let Some((node, data_type)) = planner.plan(node, field.data_type(), top)? {
            plans.push(FieldPlan { field: field.clone().with_data_type(data_type), node });
        }
    }
    Ok(plans)
}

struct Planner<'a> {
    schema: &'a SchemaDescriptor,
    options: &'a ReadOptions,
    selected: &'a dyn Fn(usize) -> bool,
    leaves: &'a mut Vec<ColumnPlan>,
}

impl Planner<'_> {
    /// A node read as `data_type`: a repeated node (outside a LIST or MAP annotation) is a
    /// list of itself.
    fn plan(&mut self, node: &SchemaNode, data_type: &DataType, cx: Context) -> Result<Option<(Node, DataType)>> {
        let element = self.schema.element(node);
        if element.repetition == Some(Repetition::REPEATED) {
            let (field, kind) = list_parts(data_type).ok_or_else(|| self.mismatch(node, data_type))?;
            let inner = Context { slot_def: node.max_def_level, in_list: true, first_leaf_levels: true };
            let Some((child, child_type)) = self.inner(node, field.data_type(), inner)? else { return Ok(None) };
            let field = Arc::new(field.as_ref().clone().with_data_type(child_type));
            let list = Node::List {
                field: Arc::clone(&field),
                kind,
                element: Box::new(child),
                def: node.max_def_level - 1,
                nullable: false,
                rep: node.max_rep_level,
                elem_def: node.max_def_level,
            };
            return Ok(Some((list, list_type(field, kind))));
        }
        self.inner(node, data_type, cx)
    }

    /// A node read as `data_type`, its own repetition aside.
    fn inner(&mut self, node: &SchemaNode, data_type: &DataType, cx: Context) -> Result<Option<(Node, DataType)>> {
        if let Some(leaf) = node.leaf {
            if !(self.selected)(leaf) {
                return Ok(None);
            }
            let column = &self.schema.columns[leaf];
            let data_type = leaf_type(leaf, column, data_type, self.options);
            let reader = self.leaves.len();
            let field = Field::new(column.dotted_path(), data_type.clone(), true);
            let levels = cx.in_list || cx.first_leaf_levels;
            self.leaves.push(ColumnPlan { field, leaf, levels: levels.then_some(cx.slot_def) });
            return Ok(Some((Node::Leaf { reader }, data_type)));
        }
        let nullable = self.schema.element(node).repetition == Some(Repetition::OPTIONAL);
        let def = node.max_def_level;
        if let Some((field, kind)) = list_parts(data_type) {
            let is_map_type = matches!(kind, ListKind::Map { .. });
            let annotated = is_list(self.schema, node) || is_map(self.schema, node);
            let [repeated] = node.children.as_slice() else { return Err(self.mismatch(node, data_type)) };
            if !annotated || self.schema.element(repeated).repetition != Some(Repetition::REPEATED) {
                return Err(self.mismatch(node, data_type));
            }
            let inner = Context { slot_def: repeated.max_def_level, in_list: true, first_leaf_levels: true };
            let planned = if is_map_type {
                // A map is read whole: its entries need both keys and values.
                if !self.any_selected(repeated) {
                    return Ok(None);
                }
                let mut all = Planner {
                    schema: self.schema,
                    options: self.options,
                    selected: &|_| true,
                    leaves: &mut *self.leaves,
                };
                all.inner(repeated, field.data_type(), inner)?
            } else if repeated_is_element(self.schema, node, repeated) {
                self.inner(repeated, field.data_type(), inner)?
            } else {
                self.plan(&repeated.children[0], field.data_type(), inner)?
            };
            let Some((child, child_type)) = planned else { return Ok(None) };
            let field = Arc::new(field.as_ref().clone().with_data_type(child_type));
            let list = Node::List {
                field: Arc::clone(&field),
                kind,
                element: Box::new(child),
                def,
                nullable,
                rep: repeated.max_rep_level,
                elem_def: repeated.max_def_level,
            };
            return Ok(Some((list, list_type(field, kind))));
        }
        let DataType::Struct(fields) = data_type else { return Err(self.mismatch(node, data_type)) };
        if fields.len() != node.children.len() {
            return Err(self.mismatch(node, data_type));
        }
        // A struct that can be absent where it has a slot (it or a parent below the innermost
        // list is optional) gets nulls there, even when its own field is required: Arrow wants
        // a required child's nulls masked by its parent's. They come from its first leaf.
        let first_leaf_levels = cx.first_leaf_levels || def > cx.slot_def;
        let mut kept = Vec::new();
        let mut children = Vec::new();
        for (child, field) in node.children.iter().zip(fields.iter()) {
            // The struct's validity (and its parents') is read from its first planned leaf.
            let cx = Context { first_leaf_levels: first_leaf_levels && children.is_empty(), ..cx };
            if let Some((plan, t)) = self.plan(child, field.data_type(), cx)? {
                kept.push(field.as_ref().clone().with_data_type(t));
                children.push(plan);
            }
        }
        if children.is_empty() {
            return Ok(None);
        }
        let fields = Fields::from(kept);
        Ok(Some((Node::Struct { fields: fields.clone(), children, def }, DataType::Struct(fields))))
    }

    fn any_selected(&self, node: &SchemaNode) -> bool {
        match node.leaf {
            Some(leaf) => (self.selected)(leaf),
            None => node.children.iter().any(|c| self.any_selected(c)),
        }
    }

    fn mismatch(&self, node: &SchemaNode, data_type: &DataType) -> Error {
        let name = &self.schema.element(node).name;
        Error::unsupported(format!(
            "the Parquet group '{name}' cannot be read as {data_type} (an unusual list or map layout)"
        ))
    }
}

/// The element field and layout of a list-like Arrow type.
fn list_parts(data_type: &DataType) -> Option<(FieldRef, ListKind)> {
    match data_type {
        DataType::List(f) | DataType::ListView(f) => Some((Arc::clone(f), ListKind::List)),
        DataType::LargeList(f) | DataType::LargeListView(f) => Some((Arc::clone(f), ListKind::Large)),
        DataType::FixedSizeList(f, n) => Some((Arc::clone(f), ListKind::Fixed(*n))),
        DataType::Map(f, sorted) => Some((Arc::clone(f), ListKind::Map { sorted: *sorted })),
        _ => None,
    }
}

/// The Arrow type of a list of `field` laid out as `kind`.
fn list_type(field: FieldRef, kind: ListKind) -> DataType {
    match kind {
        ListKind::List => DataType::List(field),
        ListKind::Large => DataType::LargeList(field),
        ListKind::Fixed(n) => DataType::FixedSizeList(field, n),
        ListKind::Map { sorted } => DataType::Map(field, sorted),
    }
}
