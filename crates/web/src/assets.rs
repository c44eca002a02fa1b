//! The page: HTML, CSS and JavaScript written for tengen, embedded in the
//! binary so that `tengen serve` needs nothing beside it.

use axum::extract::Path;
use axum::http::header;
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;

/// The embedded files: name, content type, text.
const FILES: &[(&str, &str, &str)] = &[
    (
        "style.css",
        "text/css; charset=utf-8",
        include_str!("assets/style.css"),
    ),
    (
        "app.js",
        "text/javascript; charset=utf-8",
        include_str!("assets/app.js"),
    ),
    (
        "board.js",
        "text/javascript; charset=utf-8",
        include_str!("assets/board.js"),
    ),
    (
        "review.js",
        "text/javascript; charset=utf-8",
        include_str!("assets/review.js"),
    ),
    (
        "ranks.js",
        "text/javascript; charset=utf-8",
        include_str!("assets/ranks.js"),
    ),
    (
        "rules.js",
        "text/javascript; charset=utf-8",
        include_str!("assets/rules.js"),
    ),
];

const INDEX: &str = include_str!("assets/index.html");

fn page(content_type: &'static str, text: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type),
            // The files change with the binary; a reload must not mix versions.
            (header::CACHE_CONTROL, "no-cache"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        text,
    )
        .into_response()
}

/// `GET /`: the page.
pub async fn index() -> Response {
    page("text/html; charset=utf-8", INDEX)
}

/// `GET /assets/{file}`: a script or style sheet.
pub async fn file(Path(name): Path<String>) -> Result<Response, ApiError> {
    FILES
        .iter()
        .find(|(file, _, _)| *file == name)
        .map(|(_, content_type, text)| page(content_type, text))
        .ok_or_else(|| ApiError::NotFound(format!("/assets/{name}")))
}

/// The names of the embedded files, for tests.
pub fn file_names() -> impl Iterator<Item = &'static str> {
    FILES.iter().map(|(name, _, _)| *name)
}
