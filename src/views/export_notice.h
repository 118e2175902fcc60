#pragma once
// After an export: a non-blocking notice that says where the file went, with an "Open folder"
// button (the platform's file manager on the file's folder). Every export of the window uses it.
#include <QString>

class QMessageBox;
class QWidget;

namespace npuscope {

// Shows the notice (object name "exportNotice") and returns it; it deletes itself when closed.
QMessageBox* showExportNotice(QWidget* parent, const QString& path);

} // namespace npuscope
