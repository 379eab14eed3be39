//! iofit-report: see ARCHITECTURE.md. (Being built.)
