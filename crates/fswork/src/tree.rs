//! The directory tree of an fsd, named as vdbench names it: level L's directories are
//! `vdb.L_J.dir` (J = 1..width inside each parent), files `vdb_fNNNN.file`. Directories that
//! hold files are the deepest ones (`distribution=bottom`, vdbench's default) or every one
//! (`distribution=all`).

use iofit_jobfile::vdbench::{FsdDef, XferSize};
use std::path::{Path, PathBuf};

/// The layout of one fsd: every directory and every file, by index.
#[derive(Clone, Debug)]
pub struct Tree {
    pub anchor: PathBuf,
    /// Every directory below the anchor, parents before children.
    pub dirs: Vec<PathBuf>,
    /// Indices into `dirs` of the directories that hold files.
    pub file_dirs: Vec<usize>,
    pub files_per_dir: u32,
    sizes: Vec<(u64, f64)>,
    /// (level, J) of every entry of `dirs`: `vdb.L_J.dir`.
    levels: Vec<(u32, u32)>,
    /// Files a format creates: all of them, or the first ones up to `totalsize=`.
    pub format_files: usize,
}

impl Tree {
    pub fn new(fsd: &FsdDef) -> Tree {
        let mut dirs = Vec::new();
        let mut level: Vec<PathBuf> = vec![fsd.anchor.clone()];
        let mut file_dirs = Vec::new();
        let mut levels = Vec::new();
        for depth in 1..=fsd.depth {
            let mut next = Vec::new();
            for parent in &level {
                for j in 1..=fsd.width {
                    let dir = parent.join(format!("vdb.{depth}_{j}.dir"));
                    if fsd.files_in_all_dirs || depth == fsd.depth {
                        file_dirs.push(dirs.len());
                    }
                    dirs.push(dir.clone());
                    levels.push((depth, j));
                    next.push(dir);
                }
            }
            level = next;
        }
        let sizes = match &fsd.sizes {
            XferSize::Fixed(size) => vec![(size.as_u64(), 100.0)],
            XferSize::Distribution(parts) => parts.iter().map(|(s, p)| (s.as_u64(), *p)).collect(),
        };
        let mut tree = Tree {
            anchor: fsd.anchor.clone(),
            dirs,
            file_dirs,
            files_per_dir: fsd.files,
            sizes,
            levels,
            format_files: 0,
        };
        tree.format_files = tree.file_count();
        if let Some(total) = fsd.total_size {
            let mut sum = 0u64;
            tree.format_files = (0..tree.file_count())
                .take_while(|&i| {
                    sum = sum.saturating_add(tree.file_size(i));
                    sum <= total.as_u64()
                })
                .count();
        }
        tree
    }

    /// Directories that hold files (width^depth with `distribution=bottom`).
    pub fn file_dir_count(&self) -> usize {
        self.file_dirs.len().max(usize::from(self.dirs.is_empty()))
    }

    pub fn file_count(&self) -> usize {
        self.file_dir_count() * self.files_per_dir as usize
    }

    /// The directory file `index` lives in (the anchor when depth is 0).
    pub fn dir_of_file(&self, index: usize) -> &Path {
        let dir = index / self.files_per_dir.max(1) as usize;
        match self.file_dirs.get(dir) {
            Some(&d) => &self.dirs[d],
            None => &self.anchor,
        }
    }

    pub fn file_path(&self, index: usize) -> PathBuf {
        self.dir_of_file(index).join(self.file_name(index))
    }

    /// The name of file `index` in its directory.
    pub fn file_name(&self, index: usize) -> String {
        let number = index % self.files_per_dir.max(1) as usize + 1;
        format!("vdb_f{number:04}.file")
    }

    /// The position of file `index`'s directory among the directories that hold files
    /// (0: the anchor, at depth 0).
    pub fn file_dir_of(&self, index: usize) -> usize {
        index / self.files_per_dir.max(1) as usize
    }

    /// The size of file `index`: one of `sizes=`, chosen by a hash of the index so the
    /// shares hold over the tree and the same file has the same size in every run.
    pub fn file_size(&self, index: usize) -> u64 {
        if self.sizes.len() == 1 {
            return self.sizes[0].0;
        }
        let point = (splitmix(index as u64) % 10_000) as f64 / 100.0;
        let mut acc = 0.0;
        for (size, pct) in &self.sizes {
            acc += pct;
            if point < acc {
                return *size;
            }
        }
        self.sizes.last().map(|s| s.0).unwrap_or(0)
    }

    /// Range of file indices in file directory `dir` (by position in `file_dirs`).
    pub fn files_in_dir(&self, dir: usize) -> std::ops::Range<usize> {
        let n = self.files_per_dir as usize;
        dir * n..(dir + 1) * n
    }
}

impl Tree {
    /// The file indices a host of a shared fsd may touch (`slave` of `slaves`): vdbench
    /// counts the files directory by directory, its directories sorted by level and then by
    /// their J (a stable sort of its depth-first list, Directory.compareTo), and gives file
    /// number k to slave k % slaves (FileAnchor.createFileList).
    pub fn shared_files(&self, slave: u32, slaves: u32) -> Vec<usize> {
        // (Depth 0: one file directory, the anchor, with no level.)
        let mut order: Vec<usize> = (0..self.file_dir_count()).collect();
        // `dirs` is level by level, parents in order: within one (level, J) that is the
        // depth-first order vdbench's stable sort keeps.
        order.sort_by_key(|&d| self.file_dirs.get(d).map(|&x| self.levels[x]));
        let slaves = u64::from(slaves.max(1));
        let mut mine = Vec::new();
        let mut k = 0u64;
        for d in order {
            for i in self.files_in_dir(d) {
                if k % slaves == u64::from(slave) {
                    mine.push(i);
                }
                k += 1;
            }
        }
        mine.sort_unstable();
        mine
    }
}

/// A fixed mixing function (SplitMix64's finaliser).
pub fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}
