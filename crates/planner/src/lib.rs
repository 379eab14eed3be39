//! iofit-planner: see ARCHITECTURE.md. (Being built.)
