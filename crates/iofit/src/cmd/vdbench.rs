//! Running vdbench parameter files: called by `iofit run` when the file is a vdbench file.
