// A trace's reader, link resolver and stage mapper for the views' workers, kept between jobs
// so their caches survive (a stage's parent links or nodes by Tensor op: 0.1–0.3 s to build on
// a big run, far too long for the GUI thread).
#pragma once

#include "gui/model/CancelToken.h"
#include "gui/model/LinkResolver.h"
#include "gui/model/StageCompareModel.h"
#include "trace_db/TraceReader.h"

#include <filesystem>
#include <memory>
#include <mutex>

namespace pto::gui {

/// What a job gets: the worker's own connection and resolvers (never the GUI thread's).
struct WorkerLinks {
    const tracedb::TraceReader& reader;
    LinkResolver& links;
    StageMapper& mapper;
};

/// One job at a time (a cancelled job lets go within milliseconds: its statement is
/// interrupted); opened on the first job. Held by a shared_ptr that each job captures.
class LinkWorker {
public:
    explicit LinkWorker(std::filesystem::path trace) : m_path(std::move(trace)) {}

    /// Runs `job(WorkerLinks&)` with the reader watched by `token`; throws what it throws.
    template <typename F> auto run(CancelToken& token, F&& job) {
        const std::lock_guard lock(m_mutex);
        token.check();
        WorkerLinks links = open();
        const auto watch = token.watch(links.reader);
        return std::forward<F>(job)(links);
    }

private:
    WorkerLinks open();

    std::mutex m_mutex;
    std::filesystem::path m_path;
    std::unique_ptr<tracedb::TraceReader> m_reader;
    std::unique_ptr<LinkResolver> m_links;
    std::unique_ptr<StageMapper> m_mapper;
};

} // namespace pto::gui
