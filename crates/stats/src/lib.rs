//! iofit-stats: see ARCHITECTURE.md. (Being built.)
