#include "views/time_format.h"

#include "model/analysis/time_axis.h"

#include <QLocale>

namespace npuscope {

QString formatCount(std::uint64_t n) { return QLocale(QLocale::English).toString(static_cast<qulonglong>(n)); }

TimeNs niceStep(double minNs) { return niceTimeStep(minNs); }

QString formatOffset(TimeNs offset, TimeNs step, TimeNs span)
{
    return QString::fromStdString(formatTimeOffset(offset, step, span));
}

} // namespace npuscope
