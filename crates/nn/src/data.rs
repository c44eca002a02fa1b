//! Training data: game records as compact shards (move sequences, not
//! tensors), made from SGF collections and split into training and
//! validation sets by game.
