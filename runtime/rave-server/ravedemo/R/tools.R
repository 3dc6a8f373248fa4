# The demo installation: two projects, their subjects, and one pipeline.
demo_subjects <- function() {
  data.frame(
    subject_id = c("demo/DemoSubject", "demo/KC", "pilot/P01"),
    n_electrodes = c(84L, 120L, 64L),
    epochs = c("auditory_onset,visual_onset", "auditory_onset", "rest"),
    stringsAsFactors = FALSE
  )
}

demo_targets <- c("settings", "load_data", "wavelet", "power", "baseline")

# The session's settings live in the worker's state, between calls.
settings_of <- function(state) {
  if (is.null(state)) return(list(max_size_mb = 512))
  state$get("settings", list(max_size_mb = 512))
}

mcp_tool_config_get <- function(.state_env = NULL) {
  list(settings = settings_of(.state_env))
}

mcp_tool_config_set_cache <- function(max_size_mb = 512, clear_existing = FALSE, .state_env = NULL) {
  stopifnot(is.numeric(max_size_mb), max_size_mb >= 1)
  settings <- settings_of(.state_env)
  settings$max_size_mb <- max_size_mb
  if (!is.null(.state_env)) {
    .state_env$set("settings", settings)
    if (isTRUE(clear_existing)) .state_env$remove("results")
  }
  list(max_size_mb = max_size_mb, cleared = isTRUE(clear_existing))
}

mcp_tool_subject_list <- function(project = NULL, limit = 50L, .state_env = NULL) {
  subjects <- demo_subjects()
  if (!is.null(project)) {
    subjects <- subjects[startsWith(subjects$subject_id, paste0(project, "/")), , drop = FALSE]
  }
  subjects <- subjects[order(subjects$subject_id), c("subject_id", "n_electrodes"), drop = FALSE]
  subjects <- utils::head(subjects, limit)
  rownames(subjects) <- NULL
  list(subjects = subjects, count = nrow(subjects))
}

mcp_tool_subject_load <- function(subject_id, epochs = character(0), .state_env = NULL) {
  subjects <- demo_subjects()
  row <- subjects[subjects$subject_id == subject_id, , drop = FALSE]
  if (nrow(row) == 0) {
    stop(sprintf("no subject `%s`; subject_list shows the subjects there are", subject_id))
  }
  available <- strsplit(row$epochs, ",", fixed = TRUE)[[1]]
  if (length(epochs) == 0) epochs <- available
  unknown <- setdiff(epochs, available)
  if (length(unknown) > 0) {
    warning(sprintf("epochs not in %s: %s", subject_id, paste(unknown, collapse = ", ")))
  }
  epochs <- intersect(epochs, available)
  if (!is.null(.state_env)) {
    .state_env$set("subject", list(subject_id = subject_id, epochs = epochs))
  }
  # A one-element vector stays an array: the output schema says so.
  list(subject_id = subject_id, epochs = epochs)
}

mcp_tool_pipeline_run <- function(targets = character(0), parallel = FALSE, .state_env = NULL) {
  if (is.null(.state_env) || !.state_env$has("subject")) {
    stop("no subject is loaded: call subject_load first")
  }
  if (length(targets) == 0) targets <- demo_targets
  unknown <- setdiff(targets, demo_targets)
  if (length(unknown) > 0) stop(sprintf("unknown targets: %s", paste(unknown, collapse = ", ")))
  done <- union(.state_env$get("done", character(0)), targets)
  .state_env$set("done", done)
  message(sprintf("ran %d target(s)%s", length(targets), if (isTRUE(parallel)) " in parallel" else ""))
  list(success = TRUE, message = sprintf("%d target%s completed", length(targets), if (length(targets) == 1) "" else "s"))
}

mcp_tool_pipeline_status <- function(detail = "summary", .state_env = NULL) {
  done <- if (is.null(.state_env)) character(0) else .state_env$get("done", character(0))
  out <- list(done = length(done), total = length(demo_targets))
  if (detail != "summary") {
    out$targets <- lapply(demo_targets, function(t) {
      list(name = t, status = if (t %in% done) "done" else "outdated")
    })
  }
  out
}

# For the R bridge's tests: tools that fail in every way a real one can.
mcp_tool_debug_fail <- function(reason = "it was asked to", .state_env = NULL) {
  stop(sprintf("failed because %s", reason))
}

mcp_tool_debug_warn <- function(.state_env = NULL) {
  warning("this is only a warning")
  message("and a message")
  cat("and printed output\n")
  list(ok = TRUE)
}

# Talks back while it runs (toolgen_log, toolgen_progress: the R worker's).
mcp_tool_debug_log <- function(.state_env = NULL) {
  toolgen_log("info", "starting")
  toolgen_progress(1, 2, "half way")
  toolgen_log("warning", list(step = 2L, note = "almost done"))
  list(ok = TRUE)
}

# Asks the user for a name and the client's model for a greeting.
mcp_tool_debug_ask <- function(.state_env = NULL) {
  form <- toolgen_elicit("Who is there?", list(type = "object",
    properties = list(name = list(type = "string")), required = list("name")))
  said <- toolgen_sample(paste("Greet", form$content$name), 50L)
  list(action = form$action, name = form$content$name, greeting = said$content$text)
}

mcp_tool_debug_sleep <- function(seconds = 1, .state_env = NULL) {
  Sys.sleep(seconds)
  list(slept = seconds)
}

mcp_tool_debug_quit <- function(.state_env = NULL) {
  quit(save = "no", status = 7)
}

mcp_tool_debug_plot <- function(.state_env = NULL) {
  png_file <- tempfile(fileext = ".png")
  grDevices::png(png_file, width = 200, height = 150)
  graphics::plot(1:10)
  grDevices::dev.off()
  bytes <- readBin(png_file, "raw", file.info(png_file)$size)
  unlink(png_file)
  structure(list(
    output = list(points = 10L),
    content = list(
      list(type = "image", bytes = bytes, mimeType = "image/png"),
      list(type = "resource", file = system.file("DESCRIPTION", package = "ravedemo"),
           resource = list(uri = "ravedemo://DESCRIPTION", mimeType = "text/plain")))
  ), class = "toolgen_result")
}

mcp_tool_debug_wrong_output <- function(.state_env = NULL) {
  list(count = "not a number")
}

mcp_tool_debug_counter <- function(.state_env = NULL) {
  n <- .state_env$get("counter", 0L) + 1L
  .state_env$set("counter", n)
  list(count = n, pid = Sys.getpid())
}

mcp_tool_debug_dangerous <- function(.state_env = NULL) {
  list()
}

mcp_tool_debug_stubborn <- function(.state_env = NULL) {
  repeat tryCatch(Sys.sleep(30), interrupt = function(i) NULL)
}
