//! iofit-engine: see ARCHITECTURE.md. (Being built.)
