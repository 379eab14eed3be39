//! iofit-jobfile: see ARCHITECTURE.md. (Being built.)
