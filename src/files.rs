//! The one way chiffon reads a file it is given: an OBJ mesh (for a cloth or a mesh collider),
//! a list of frame times. [`open`] refuses what is not a regular file before opening it, so a
//! named pipe cannot block the run and a device (`/dev/zero`, `/dev/null`) is not read as an
//! endless or an empty file; it bounds the size up front and again while reading (a file may
//! grow), and [`read_line`] bounds each line, so a file without line breaks cannot fill the
//! memory. Every refusal names the file.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use crate::error::{ChiffonError, Result};

/// Largest OBJ file read (bytes): 8 GiB. A file at the reader's own limits (2²⁴ vertices and
/// 2²⁶ triangles written with full `v/vt/vn` corners) is about 6 GB; past that a file holds
/// more than chiffon can use, and the bound keeps a sparse or runaway file from being read
/// for hours.
pub const MAX_OBJ_BYTES: u64 = 8 << 30;
/// Longest OBJ line, or record joined by `\` (bytes): 1 MiB, a polygon of some 40 000
/// `v/vt/vn` corners. Real lines are tens of bytes; the bound is for a file that is not OBJ.
pub const MAX_OBJ_LINE_BYTES: usize = 1 << 20;
/// Largest file of frame times (`--dt file:`, bytes): 64 MiB, about 10 million frames (two
/// days at 60 fps). Its values are held for the run, so the bound is one on memory.
pub const MAX_DT_FILE_BYTES: u64 = 64 << 20;

/// A file opened by [`open`]: its reads fail once more than its bound has been read.
pub type Input = BufReader<Bounded>;

/// A file that may be read up to a bound (bytes), and fails past it.
#[derive(Debug)]
pub struct Bounded {
    file: std::fs::File,
    left: u64,
    max: u64,
    what: &'static str,
}

impl Read for Bounded {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if self.left == 0 {
            // At the bound: the file ends here, or it grew past it since it was opened.
            let mut probe = [0u8; 1];
            if self.file.read(&mut probe)? == 0 {
                return Ok(0);
            }
            return Err(std::io::Error::other(too_large(self.max, self.what)));
        }
        let n = buf
            .len()
            .min(usize::try_from(self.left).unwrap_or(usize::MAX));
        let read = self.file.read(&mut buf[..n])?;
        self.left -= read as u64;
        Ok(read)
    }
}

fn too_large(max: u64, what: &str) -> String {
    format!("larger than {max} bytes, the most chiffon reads as {what}")
}

/// What a file that is not a regular file is, and why chiffon does not read it.
fn not_regular(kind: std::fs::FileType) -> String {
    if kind.is_dir() {
        return "is a folder, not a file".into();
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "is a named pipe (FIFO), not a regular file; chiffon reads only regular \
                    files (reading a pipe would wait for a writer, perhaps forever)"
                .into();
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "is a device (such as /dev/null or /dev/zero), not a regular file; chiffon \
                    reads only regular files"
                .into();
        }
        if kind.is_socket() {
            return "is a socket, not a regular file; chiffon reads only regular files".into();
        }
    }
    "is not a regular file; chiffon reads only regular files".into()
}

/// Opens the file at `path` to read it as `what` ("an OBJ file"), at most `max_bytes` of it.
/// Refused, with an error naming the file: what is not there or cannot be opened, anything
/// but a regular file (checked before opening: opening a named pipe waits for a writer), and
/// a file over the bound.
pub fn open(path: &Path, what: &'static str, max_bytes: u64) -> Result<Input> {
    let name = || path.display().to_string();
    let io = |error| ChiffonError::Io {
        path: name(),
        error,
    };
    let refuse = |reason: String| ChiffonError::UnreadableFile {
        path: name(),
        reason,
    };
    let check = |meta: std::fs::Metadata| {
        if !meta.is_file() {
            return Err(refuse(not_regular(meta.file_type())));
        }
        if meta.len() > max_bytes {
            return Err(refuse(format!(
                "is {} bytes, {}",
                meta.len(),
                too_large(max_bytes, what)
            )));
        }
        Ok(())
    };
    check(std::fs::metadata(path).map_err(io)?)?;
    let file = std::fs::File::open(path).map_err(io)?;
    // Again on what was opened: the path may have been replaced in between.
    check(file.metadata().map_err(io)?)?;
    Ok(BufReader::new(Bounded {
        file,
        left: max_bytes,
        max: max_bytes,
        what,
    }))
}

/// What [`read_line`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Line {
    /// The end of the input: nothing was read.
    End,
    /// A line (with its `\n`, unless it is the last and has none) was appended.
    Read,
    /// More than the bound was read without a line break: the line is too long.
    TooLong,
}

/// Appends the next line of `input` to `buf`, reading at most `max` bytes of it (plus its
/// `\n`), so a file without line breaks is refused, not held whole.
pub fn read_line(input: &mut impl BufRead, buf: &mut Vec<u8>, max: usize) -> std::io::Result<Line> {
    let start = buf.len();
    let read = input.take(max as u64 + 1).read_until(b'\n', buf)?;
    Ok(if read == 0 {
        Line::End
    } else if read > max && buf.last() != Some(&b'\n') {
        buf.truncate(start + max);
        Line::TooLong
    } else {
        Line::Read
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_bounded() {
        let mut input = "ab\ncdef\ng".as_bytes();
        let mut buf = Vec::new();
        assert_eq!(read_line(&mut input, &mut buf, 3).unwrap(), Line::Read);
        assert_eq!(buf, b"ab\n");
        buf.clear();
        assert_eq!(read_line(&mut input, &mut buf, 3).unwrap(), Line::TooLong);
        buf.clear();
        let mut input = "abc\nd".as_bytes();
        assert_eq!(read_line(&mut input, &mut buf, 3).unwrap(), Line::Read);
        buf.clear();
        assert_eq!(read_line(&mut input, &mut buf, 3).unwrap(), Line::Read);
        assert_eq!(buf, b"d");
        buf.clear();
        assert_eq!(read_line(&mut input, &mut buf, 3).unwrap(), Line::End);
        let mut endless = BufReader::new(std::io::repeat(b'0'));
        assert_eq!(
            read_line(&mut endless, &mut buf, 1 << 10).unwrap(),
            Line::TooLong
        );
        assert_eq!(buf.len(), 1 << 10);
    }
}
