//! Reading Wavefront OBJ files into a [`TriangleMesh`].
//!
//! chiffon reads OBJ itself: a cloth needs a different reading from a renderer's (no
//! materials, polygons split without a hub corner, `l` records kept out of the surface, every
//! refusal naming its line), and the format is small.
//!
//! What is read:
//! - `v` positions (a weight or a vertex colour after x y z is ignored), `vt` texture
//!   coordinates, `f` (and the old `fo`) faces: triangles, quads and larger polygons, split by
//!   ear clipping in their best-fit plane (concave ones too) with their diagonals kept as shear
//!   edges. Indices count from 1, or back from the last vertex defined so far when negative
//!   (-1 is the last).
//! - `o` and `g` names as groups: a face belongs to the groups of the last `g` line (a `g` line
//!   may name several) or, when an `o` line came after it or there was none, to the object.
//! - `mtllib` names, only to say when one is missing ([`load`]): a cloth needs no material.
//!
//! Skipped and counted in [`MeshStats`]: `l` polylines, `p` points, free-form curves and
//! surfaces (`curv`, `curv2`, `surf`). Ignored: normals (chiffon computes its own), materials,
//! smoothing groups and any other record.
//!
//! Text: UTF-8 with or without a byte-order mark, or UTF-16 with one; a line that is not UTF-8
//! is read as Latin-1 (older exporters write group names and comments in it); LF or CRLF line
//! ends, `\` joining a line to the next, and `#` comments (at the start of a word, so a name
//! like `Box#1` stays whole).
//!
//! One file, though long: the format is small and read in one pass, and every refusal names
//! its line here; a twentieth of it is tests.

use std::collections::HashMap;
use std::io::BufRead;
use std::path::Path;

use glam::{Vec2, Vec3};

use super::triangulate::Triangulator;
use super::{MeshGroup, MeshStats, TriangleMesh, UvLayer};
use crate::config::MAX_PARTICLES;
use crate::error::{ChiffonError, Result};
use crate::files::{Line, MAX_OBJ_BYTES, MAX_OBJ_LINE_BYTES, read_line};

/// Most vertices a file may define: a cloth has at most [`MAX_PARTICLES`] particles (welding
/// only removes vertices), so reading stops there instead of filling memory.
pub const MAX_VERTICES: u64 = MAX_PARTICLES;

/// Most triangles a file may make (its faces split): four per possible particle, twice what
/// a closed surface of [`MAX_PARTICLES`] vertices has.
pub const MAX_TRIANGLES: u64 = 4 * MAX_PARTICLES;

/// Reads the OBJ file at `path`, and counts in [`MeshStats::missing_material_libraries`] the
/// `mtllib` files it names that are not there (relative to the file's folder).
/// The file is read through [`crate::files::open`]: a pipe, a device or a folder is refused,
/// and so is a file over [`MAX_OBJ_BYTES`] or a line over [`MAX_OBJ_LINE_BYTES`].
pub fn load(path: &Path) -> Result<TriangleMesh> {
    let name = path.display().to_string();
    let file = crate::files::open(path, "an OBJ file", MAX_OBJ_BYTES)?;
    let (mut mesh, libraries) = read(file, &name)?;
    let folder = path.parent().unwrap_or(Path::new(""));
    let exists = |library: &str| folder.join(library).is_file();
    // `mtllib a.mtl b.mtl` names two libraries, but some exporters write one name with
    // spaces in it: a line is fine when either reading finds its files.
    mesh.stats.missing_material_libraries = libraries
        .iter()
        .filter(|line| !exists(line))
        .map(|line| line.split_whitespace().filter(|l| !exists(l)).count())
        .sum();
    Ok(mesh)
}

/// Parses OBJ text (`bytes`, the whole file); `name` (usually the file name) is what errors
/// call it. Material libraries are not looked for.
pub fn parse(bytes: &[u8], name: &str) -> Result<TriangleMesh> {
    read(bytes, name).map(|(mesh, _)| mesh)
}

/// Reads an OBJ file from `input`: the mesh and the `mtllib` lines' names.
fn read(mut input: impl BufRead, name: &str) -> Result<(TriangleMesh, Vec<String>)> {
    let io = |error| ChiffonError::Io {
        path: name.to_string(),
        error,
    };
    let head = input.fill_buf().map_err(io)?;
    if head.starts_with(&[0xEF, 0xBB, 0xBF]) {
        input.consume(3);
    } else if head.starts_with(&[0xFF, 0xFE]) || head.starts_with(&[0xFE, 0xFF]) {
        // UTF-16 (some Windows tools): decoded to UTF-8 as it is read, so the line bound
        // holds for it too (a whole file decoded at once could fill the memory).
        let little = head[0] == 0xFF;
        input.consume(2);
        return Reader::new(name).run(std::io::BufReader::new(Utf16 {
            input,
            little,
            out: Vec::new(),
            at: 0,
            odd: None,
            high: None,
        }));
    }
    Reader::new(name).run(input)
}

/// UTF-16 text read as UTF-8, a chunk at a time (a surrogate pair or a byte split between
/// chunks is carried over; an unpaired surrogate or a last odd byte reads as U+FFFD or as the
/// byte with a zero, as a whole-file decode did).
struct Utf16<R> {
    input: R,
    little: bool,
    /// Decoded bytes not yet read, from `at`.
    out: Vec<u8>,
    at: usize,
    /// A byte of a code unit whose other byte is in the next chunk.
    odd: Option<u8>,
    /// A high surrogate whose low one is in the next chunk.
    high: Option<u16>,
}

impl<R: BufRead> std::io::Read for Utf16<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.at == self.out.len() {
            self.out.clear();
            self.at = 0;
            let chunk = self.input.fill_buf()?;
            let end = chunk.is_empty();
            if end && self.odd.is_none() && self.high.is_none() {
                return Ok(0);
            }
            let mut bytes: Vec<u8> = self.odd.take().into_iter().collect();
            bytes.extend_from_slice(chunk);
            let n = chunk.len();
            self.input.consume(n);
            if bytes.len() % 2 == 1 {
                if end {
                    bytes.push(0);
                } else {
                    self.odd = bytes.pop();
                }
            }
            let mut units: Vec<u16> = self.high.take().into_iter().collect();
            units.extend(bytes.chunks_exact(2).map(|b| {
                if self.little {
                    u16::from_le_bytes([b[0], b[1]])
                } else {
                    u16::from_be_bytes([b[0], b[1]])
                }
            }));
            if !end && matches!(units.last(), Some(0xD800..=0xDBFF)) {
                self.high = units.pop();
            }
            let mut scratch = [0u8; 4];
            for c in char::decode_utf16(units) {
                let c = c.unwrap_or(char::REPLACEMENT_CHARACTER);
                self.out
                    .extend_from_slice(c.encode_utf8(&mut scratch).as_bytes());
            }
        }
        let n = buf.len().min(self.out.len() - self.at);
        buf[..n].copy_from_slice(&self.out[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// One face as read: its corners are `corners[start..start + len]` (and the same range of
/// `corner_uvs` when it has texture coordinates).
struct Face {
    start: usize,
    len: u32,
    /// Index into `Reader::group_sets`.
    groups: u32,
    uv: bool,
}

struct Reader<'a> {
    name: &'a str,
    /// Line number of the record being read (its first line, for a continued one).
    line: usize,
    positions: Vec<Vec3>,
    uvs: Vec<Vec2>,
    corners: Vec<u32>,
    corner_uvs: Vec<u32>,
    faces: Vec<Face>,
    /// Triangles the faces will make.
    triangles: u64,
    group_names: Vec<String>,
    group_index: HashMap<String, u32>,
    /// Each `o`/`g` line starts a new set of groups (indices into `group_names`).
    group_sets: Vec<Vec<u32>>,
    object: Option<u32>,
    /// The largest vertex and texture coordinate numbers named before they were defined, and
    /// where: checked once the file has been read (OBJ allows naming a later vertex).
    forward_vertex: Option<(u64, usize)>,
    forward_uv: Option<(u64, usize)>,
    libraries: Vec<String>,
    stats: MeshStats,
}

impl<'a> Reader<'a> {
    fn new(name: &'a str) -> Self {
        Self {
            name,
            line: 0,
            positions: Vec::new(),
            uvs: Vec::new(),
            corners: Vec::new(),
            corner_uvs: Vec::new(),
            faces: Vec::new(),
            triangles: 0,
            group_names: Vec::new(),
            group_index: HashMap::new(),
            group_sets: vec![Vec::new()],
            object: None,
            forward_vertex: None,
            forward_uv: None,
            libraries: Vec::new(),
            stats: MeshStats::default(),
        }
    }

    /// An error about the file as a whole.
    fn bad(&self, reason: String) -> ChiffonError {
        ChiffonError::InvalidMesh {
            source_name: self.name.to_string(),
            reason,
        }
    }

    /// An error about the record being read.
    fn bad_line(&self, reason: impl std::fmt::Display) -> ChiffonError {
        self.bad(format!("line {}: {reason}", self.line))
    }

    fn run(mut self, mut input: impl BufRead) -> Result<(TriangleMesh, Vec<String>)> {
        let mut chunk = Vec::new();
        let mut record = Vec::new();
        let mut line = 0usize;
        loop {
            chunk.clear();
            let read = read_line(&mut input, &mut chunk, MAX_OBJ_LINE_BYTES).map_err(|error| {
                ChiffonError::Io {
                    path: self.name.to_string(),
                    error,
                }
            })?;
            if read == Line::End {
                if !record.is_empty() {
                    self.record(&record)?;
                }
                break;
            }
            line += 1;
            // A line (or a record joined by `\`) this long is not OBJ: refused before it is
            // held whole (a file of one endless line would fill the memory).
            if read == Line::TooLong || record.len() + chunk.len() > MAX_OBJ_LINE_BYTES {
                return Err(self.bad(format!(
                    "line {line} is longer than {MAX_OBJ_LINE_BYTES} bytes; OBJ records are short \
                     lines of text (is this an OBJ file?)"
                )));
            }
            if record.is_empty() {
                self.line = line;
            }
            while let Some(b'\n' | b'\r') = chunk.last() {
                chunk.pop();
            }
            if let Some(b'\\') = chunk.last() {
                chunk.pop();
                record.extend_from_slice(&chunk);
                record.push(b' ');
                continue;
            }
            record.extend_from_slice(&chunk);
            self.record(&record)?;
            record.clear();
        }
        self.finish()
    }

    /// Reads one record (a line, with its continuations).
    fn record(&mut self, bytes: &[u8]) -> Result<()> {
        if bytes.contains(&0) {
            return Err(self.bad_line("a NUL byte: this is not a text file (OBJ is text)"));
        }
        let text: std::borrow::Cow<str> = match std::str::from_utf8(bytes) {
            Ok(text) => text.into(),
            // Latin-1: every byte is the character of the same number.
            Err(_) => bytes.iter().map(|&b| b as char).collect::<String>().into(),
        };
        // A comment starts with `#` at the start of a word.
        let mut end = text.len();
        let mut word_start = true;
        for (k, c) in text.char_indices() {
            if c == '#' && word_start {
                end = k;
                break;
            }
            word_start = c.is_whitespace();
        }
        let text = &text[..end];
        let mut words = text.split_whitespace();
        let Some(keyword) = words.next() else {
            return Ok(());
        };
        // What follows the keyword, as written (names may hold spaces).
        let rest = text.trim_start()[keyword.len()..].trim();
        match keyword {
            "v" => self.vertex(words),
            "vt" => self.texture_coordinate(words),
            "f" | "fo" => self.face(words),
            "l" => {
                self.stats.skipped_lines += 1;
                Ok(())
            }
            "p" => {
                self.stats.skipped_points += 1;
                Ok(())
            }
            "curv" | "curv2" | "surf" => {
                self.stats.skipped_free_form += 1;
                Ok(())
            }
            "o" => {
                self.object = (!rest.is_empty()).then(|| self.group(rest));
                let set = self.object.into_iter().collect();
                self.group_sets.push(set);
                Ok(())
            }
            "g" => {
                let set = words.map(|w| self.group(w)).collect();
                self.group_sets.push(set);
                Ok(())
            }
            "mtllib" => {
                if !rest.is_empty() {
                    self.libraries.push(rest.to_string());
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn group(&mut self, name: &str) -> u32 {
        if let Some(&k) = self.group_index.get(name) {
            return k;
        }
        let k = self.group_names.len() as u32;
        self.group_names.push(name.to_string());
        self.group_index.insert(name.to_string(), k);
        k
    }

    fn number(&self, word: Option<&str>, what: &str) -> Result<f32> {
        let Some(word) = word else {
            return Err(self.bad_line(format!("{what} is missing")));
        };
        word.parse::<f32>()
            .map_err(|_| self.bad_line(format!("{word:?} is not a number ({what})")))
    }

    fn vertex<'w>(&mut self, mut words: impl Iterator<Item = &'w str>) -> Result<()> {
        if self.positions.len() as u64 >= MAX_VERTICES {
            return Err(self.bad_line(format!(
                "more than {MAX_VERTICES} vertices, more than chiffon supports"
            )));
        }
        let mut p = [0.0f32; 3];
        for (c, axis) in p.iter_mut().zip(["x", "y", "z"]) {
            *c = self.number(words.next(), axis)?;
        }
        // The rest (a weight w, or a vertex colour) is not needed.
        if !p.iter().all(|c| c.is_finite()) {
            return Err(self.bad_line(format!(
                "vertex {} has a non-finite coordinate {p:?}",
                self.positions.len() + 1
            )));
        }
        self.positions.push(Vec3::from(p));
        Ok(())
    }

    fn texture_coordinate<'w>(&mut self, mut words: impl Iterator<Item = &'w str>) -> Result<()> {
        let u = self.number(words.next(), "u")?;
        // v is optional (0), and so is a third coordinate.
        let v = match words.next() {
            Some(w) => self.number(Some(w), "v")?,
            None => 0.0,
        };
        if !(u.is_finite() && v.is_finite()) {
            return Err(self.bad_line(format!(
                "texture coordinate {} is not finite ({u}, {v})",
                self.uvs.len() + 1
            )));
        }
        self.uvs.push(Vec2::new(u, v));
        Ok(())
    }

    /// A vertex or texture coordinate number as written (1-based, or negative counting back
    /// from the last of the `defined` so far) into a 0-based index.
    fn index(&mut self, word: &str, defined: usize, what: &str) -> Result<u32> {
        let k: i64 = word
            .parse()
            .map_err(|_| self.bad_line(format!("{word:?} is not a {what} number")))?;
        let index = match k {
            0 => {
                return Err(self.bad_line(format!(
                    "{what} number 0 (OBJ counts from 1, or from -1 backwards)"
                )));
            }
            k if k > 0 => k as u64 - 1,
            k => {
                let back = k.unsigned_abs();
                if back > defined as u64 {
                    return Err(self.bad_line(format!(
                        "{what} number {k} reaches before the first {what} ({defined} are \
                         defined before this line)"
                    )));
                }
                defined as u64 - back
            }
        };
        if index >= MAX_VERTICES {
            return Err(self.bad_line(format!(
                "{what} number {k} is more than chiffon supports ({MAX_VERTICES})"
            )));
        }
        if index >= defined as u64 {
            let forward = if what == "vertex" {
                &mut self.forward_vertex
            } else {
                &mut self.forward_uv
            };
            if forward.is_none_or(|(i, _)| index > i) {
                *forward = Some((index, self.line));
            }
        }
        Ok(index as u32)
    }

    fn face<'w>(&mut self, words: impl Iterator<Item = &'w str>) -> Result<()> {
        let start = self.corners.len();
        let mut uv = true;
        for word in words {
            let mut parts = word.split('/');
            let v = parts.next().unwrap_or("");
            let v = self.index(v, self.positions.len(), "vertex")?;
            self.corners.push(v);
            match parts.next() {
                Some(t) if !t.is_empty() => {
                    let t = self.index(t, self.uvs.len(), "texture coordinate")?;
                    self.corner_uvs.push(t);
                }
                _ => {
                    uv = false;
                    self.corner_uvs.push(0);
                }
            }
        }
        let len = self.corners.len() - start;
        if len < 3 {
            return Err(self.bad_line(format!(
                "a face needs at least 3 vertices, this one has {len}"
            )));
        }
        self.triangles += len as u64 - 2;
        if self.triangles > MAX_TRIANGLES {
            return Err(self.bad_line(format!(
                "more than {MAX_TRIANGLES} triangles, more than chiffon supports"
            )));
        }
        self.faces.push(Face {
            start,
            len: len as u32,
            groups: self.group_sets.len() as u32 - 1,
            uv,
        });
        Ok(())
    }

    /// Checks what could only be checked at the end, and splits the faces into triangles.
    fn finish(mut self) -> Result<(TriangleMesh, Vec<String>)> {
        for (forward, defined, what) in [
            (self.forward_vertex, self.positions.len(), "vertex"),
            (self.forward_uv, self.uvs.len(), "texture coordinate"),
        ] {
            if let Some((index, line)) = forward
                && index >= defined as u64
            {
                self.line = line;
                return Err(self.bad_line(format!(
                    "a face names {what} {}, but the file defines {defined}",
                    index + 1
                )));
            }
        }
        if self.faces.is_empty() {
            let s = &self.stats;
            return Err(self.bad(format!(
                "it has no faces, no triangles or polygons to make a surface of (it has {} \
                 vertices, {} lines and {} points)",
                self.positions.len(),
                s.skipped_lines,
                s.skipped_points
            )));
        }
        let has_uvs = self.faces.iter().all(|f| f.uv);
        let mut mesh = TriangleMesh {
            name: self.name.to_string(),
            ..TriangleMesh::default()
        };
        mesh.triangles.reserve(self.triangles as usize);
        let mut uv_triangles = Vec::new();
        let mut group_triangles: Vec<Vec<u32>> = vec![Vec::new(); self.group_names.len()];
        let mut splitter = Triangulator::default();
        let (mut ring, mut uv_ring, mut points) = (Vec::new(), Vec::new(), Vec::new());
        let (mut local, mut diagonals) = (Vec::new(), Vec::new());
        for face in &self.faces {
            let range = face.start..face.start + face.len as usize;
            let first = mesh.triangles.len() as u32;
            // A corner repeated right after itself (`f 1 2 2 3`) is one corner.
            ring.clear();
            uv_ring.clear();
            for (&v, &t) in self.corners[range.clone()]
                .iter()
                .zip(&self.corner_uvs[range.clone()])
            {
                if ring.last() != Some(&v) {
                    ring.push(v);
                    uv_ring.push(t);
                }
            }
            while ring.len() > 1 && ring.first() == ring.last() {
                ring.pop();
                uv_ring.pop();
            }
            if ring.len() < 3 {
                // No polygon left: one degenerate triangle, for welding to drop and count.
                ring.clear();
                uv_ring.clear();
                ring.extend_from_slice(&self.corners[range.start..range.start + 3]);
                uv_ring.extend_from_slice(&self.corner_uvs[range.start..range.start + 3]);
            }
            local.clear();
            diagonals.clear();
            points.clear();
            points.extend(ring.iter().map(|&v| self.positions[v as usize]));
            if !splitter.split(&points, &mut local, &mut diagonals) {
                self.stats.irregular_polygons += 1;
            }
            for t in &local {
                mesh.triangles.push(t.map(|k| ring[k as usize]));
                if has_uvs {
                    uv_triangles.push(t.map(|k| uv_ring[k as usize]));
                }
            }
            mesh.diagonals.extend(
                diagonals
                    .iter()
                    .map(|d| d.map(|k| ring[k as usize]))
                    .filter(|d| d[0] != d[1]),
            );
            let last = mesh.triangles.len() as u32;
            for &g in &self.group_sets[face.groups as usize] {
                group_triangles[g as usize].extend(first..last);
            }
        }
        mesh.groups = self
            .group_names
            .into_iter()
            .zip(group_triangles)
            .filter(|(_, triangles)| !triangles.is_empty())
            .map(|(name, triangles)| MeshGroup { name, triangles })
            .collect();
        if has_uvs {
            mesh.uvs = Some(UvLayer {
                uvs: self.uvs,
                triangles: uv_triangles,
            });
        }
        mesh.positions = self.positions;
        mesh.stats = self.stats;
        Ok((mesh, self.libraries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// UTF-16 decoded through chunks of every small size: code units and surrogate pairs split
    /// between chunks read as the whole text does.
    #[test]
    fn utf16_decodes_the_same_through_any_chunking() {
        let text = "g 𝄞a\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\ng b𝄞\nf 3 2 1\n";
        let want = read(text.as_bytes(), "t").unwrap().0;
        for little in [true, false] {
            // The byte-order mark is U+FEFF in the text's own byte order.
            let order = if little {
                u16::to_le_bytes
            } else {
                u16::to_be_bytes
            };
            let bytes: Vec<u8> = std::iter::once(0xFEFF)
                .chain(text.encode_utf16())
                .flat_map(order)
                .collect();
            // From 3: the byte-order mark is looked for in the first chunk.
            for capacity in 3..=9 {
                let input = std::io::BufReader::with_capacity(capacity, &bytes[..]);
                let got = read(input, "t").unwrap().0;
                assert_eq!(got.positions, want.positions, "{capacity}");
                assert_eq!(got.triangles, want.triangles, "{capacity}");
                assert_eq!(got.groups, want.groups, "{capacity}");
            }
        }
    }
}
