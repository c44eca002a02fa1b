//! KataGo's input features (input version 7): 22 spatial planes and 19
//! global values, computed from a [`tengen_core::Game`].
