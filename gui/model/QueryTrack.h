// Rows of a SQL console query with ts/dur columns, to be shown as an extra timeline track.
#pragma once

#include <QString>

#include <cstdint>
#include <vector>

namespace pto::gui {

struct QueryTrack {
    struct Item {
        std::int64_t ts = 0;  ///< cycles
        std::int64_t dur = 0; ///< cycles; 0 draws an instant
        QString name;
        int depth = 0; ///< lane within the track: overlapping rows stack, as Perfetto draws them
    };
    QString title;             ///< shown as the track's name (the query, shortened)
    std::int64_t trackId = -1; ///< the rows' track column when it was one track, else -1
    std::vector<Item> items;   ///< by ts
};

} // namespace pto::gui
