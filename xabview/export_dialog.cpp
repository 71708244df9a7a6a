#include "export_dialog.h"

#include "export.h"

#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QMessageBox>
#include <QSpinBox>

namespace xab::view {
namespace {

// ab2au's MODE nb length scale, with the paper's values to start from.
bool askSoundOptions(QWidget* parent, SoundOptions& o) {
  QDialog d(parent);
  d.setWindowTitle("Export sound");
  auto* form = new QFormLayout(&d);
  auto* mode = new QComboBox;
  mode->addItem("send: a beep at the sender's pitch per send", "send");
  mode->addItem("sendmix: the chord of tasks with messages in flight", "sendmix");
  mode->addItem("sendnum: pitch by the number of messages in flight", "sendnum");
  mode->setCurrentIndex(mode->findData(o.mode));
  auto spin = [](int lo, int hi, int value, const char* suffix) {
    auto* s = new QSpinBox;
    s->setRange(lo, hi);
    s->setValue(value);
    s->setSuffix(suffix);
    return s;
  };
  auto* nb = spin(1, 1000, o.nb, "");
  auto* length = spin(1, 8000 * 60, o.length, " samples (8000 per second)");
  auto* scale = spin(1, 1000000000, o.scaleUs, " µs of the run per step");
  form->addRow("Mode", mode);
  form->addRow("nb (pitches)", nb);
  form->addRow("length", length);
  form->addRow("scale", scale);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  QObject::connect(buttons, &QDialogButtonBox::accepted, &d, &QDialog::accept);
  QObject::connect(buttons, &QDialogButtonBox::rejected, &d, &QDialog::reject);
  form->addRow(buttons);
  if (d.exec() != QDialog::Accepted) return false;
  o.mode = mode->currentData().toString();
  o.nb = nb->value();
  o.length = length->value();
  o.scaleUs = scale->value();
  return true;
}

// The first extension a filter names: "(*.trf *.picl)" -> ".trf".
QString firstExtension(const QString& filter) {
  int star = filter.indexOf("*.");
  if (star < 0) return {};
  return filter.mid(star + 1).section(' ', 0, 0).remove(')');
}

}  // namespace

bool askExport(QWidget* parent, const ViewSnapshot& s, QString* file, SoundOptions* sound) {
  QStringList filters = exportFilters();
  if (filters.isEmpty()) {
    QMessageBox::information(parent, "xabview", "This xabview was built without the translators.");
    return false;
  }
  QString filter;
  *file = QFileDialog::getSaveFileName(parent, "Export trace", suggestedName(s.source, ".trf"), filters.join(";;"), &filter);
  if (file->isEmpty()) return false;
  if (exportFormatOf(*file) == ExportFormat::Unknown) *file += firstExtension(filter);
  ExportFormat f = exportFormatOf(*file);
  return !((f == ExportFormat::Au || f == ExportFormat::Wav) && !askSoundOptions(parent, *sound));
}

}  // namespace xab::view
