// The views' workers' reader and resolvers, opened once per trace.
#include "gui/model/LinkWorker.h"

namespace pto::gui {

WorkerLinks LinkWorker::open() {
    if (!m_mapper) { // all three or none, even when one of them throws
        auto reader = std::make_unique<tracedb::TraceReader>(tracedb::TraceReader::open(m_path));
        auto links = std::make_unique<LinkResolver>(*reader);
        m_mapper = std::make_unique<StageMapper>(*reader, *links);
        m_reader = std::move(reader);
        m_links = std::move(links);
    }
    return {*m_reader, *m_links, *m_mapper};
}

} // namespace pto::gui
