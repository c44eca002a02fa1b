//! Board encoders: a position as input planes for a network, and moves to
//! and from the network's move indices.
