//! iofit-profile: see ARCHITECTURE.md. (Being built.)
