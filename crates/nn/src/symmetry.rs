//! The eight symmetries of a square board (four of a rectangular one), on
//! input planes and on move indices, for training augmentation.
