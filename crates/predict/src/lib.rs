//! iofit-predict: see ARCHITECTURE.md. (Being built.)
