#pragma once
// After an export: a non-blocking notice that says where the file went, with an "Open folder"
// button (the platform's file manager on the file's folder), or that says which file could not
// be written and why. Every export shows the notice; the window's and the ranking's show the error.
#include <QString>

class QMessageBox;
class QWidget;

namespace npuscope {

// Shows the notice (object name "exportNotice") and returns it; it deletes itself when closed.
QMessageBox* showExportNotice(QWidget* parent, const QString& path);
// Shows "Could not write PATH: reason" (object name "exportError"), non-blocking like the notice.
QMessageBox* showExportError(QWidget* parent, const QString& path, const QString& reason);

} // namespace npuscope
