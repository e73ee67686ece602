#include "strategyregistry.h"

#include "builtinstrategies.h"
#include "core/installlayout.h"
#include "parametervalues.h"

#include <QDir>
#include <QJsonObject>
#include <QLibrary>
#include <QMutex>
#include <QMutexLocker>
#include <QPluginLoader>
#include <QStandardPaths>

namespace kiln {

namespace {

struct Entry
{
    QString name;
    QString description;
    StrategyFactory *factory = nullptr; // owned by Qt's plugin instance
};

// $KILN_PLUGIN_PATH (colon-separated), then the installed plugin folder beside the executable,
// then the user's own (~/.local/share/kiln/plugins).
QStringList defaultDirectories()
{
    QStringList directories =
        qEnvironmentVariable("KILN_PLUGIN_PATH").split(QLatin1Char(':'), Qt::SkipEmptyParts);
    if (const QString installed =
            InstallLayout::besideExecutable(QStringLiteral(KILN_PLUGIN_FROM_BIN));
        !installed.isEmpty())
        directories.append(installed);
    directories.append(QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) +
                       QStringLiteral("/kiln/plugins"));
    return directories;
}

struct Registry
{
    QMutex mutex;
    QStringList directories = defaultDirectories();
    bool loaded = false;
    QList<Entry> entries;
    QStringList loadErrors;
};

Registry &registry()
{
    static Registry instance;
    return instance;
}

const QStringList &builtinOrder()
{
    static const QStringList order{QStringLiteral("best-of-n"), QStringLiteral("refine"),
                                   QStringLiteral("beam"),      QStringLiteral("greedy"),
                                   QStringLiteral("mcts"),      QStringLiteral("evolve"),
                                   QStringLiteral("two-phase")};
    return order;
}

void addEntry(QList<Entry> &entries, QObject *instance, const QJsonObject &metaData)
{
    auto *factory = qobject_cast<StrategyFactory *>(instance);
    if (!factory)
        return;
    const QString name = factory->strategyName();
    for (const Entry &e : std::as_const(entries)) {
        if (e.name == name)
            return; // the first (static) registration wins
    }
    const QJsonObject data = metaData.value(QLatin1String("MetaData")).toObject();
    entries.append({name, data.value(QLatin1String("description")).toString(), factory});
}

// Caller holds the mutex.
void ensureLoaded(Registry &r)
{
    if (r.loaded)
        return;
    importBuiltinStrategies();
    r.entries.clear();
    r.loadErrors.clear();
    const QList<QStaticPlugin> statics = QPluginLoader::staticPlugins();
    for (const QStaticPlugin &plugin : statics) {
        const QJsonObject meta = plugin.metaData();
        if (meta.value(QLatin1String("IID")).toString() == QLatin1String(KilnStrategyFactory_iid))
            addEntry(r.entries, plugin.instance(), meta);
    }
    for (const QString &directory : std::as_const(r.directories)) {
        const QDir dir(directory);
        const QStringList files = dir.entryList(QDir::Files, QDir::Name);
        for (const QString &file : files) {
            const QString path = dir.absoluteFilePath(file);
            if (!QLibrary::isLibrary(path))
                continue;
            QPluginLoader loader(path);
            const QJsonObject meta = loader.metaData();
            if (meta.value(QLatin1String("IID")).toString() !=
                QLatin1String(KilnStrategyFactory_iid))
                continue;
            QObject *instance = loader.instance();
            if (!instance)
                r.loadErrors.append(path + QStringLiteral(": ") + loader.errorString());
            addEntry(r.entries, instance, meta);
        }
    }
    std::stable_sort(r.entries.begin(), r.entries.end(), [](const Entry &a, const Entry &b) {
        const qsizetype ia = builtinOrder().indexOf(a.name);
        const qsizetype ib = builtinOrder().indexOf(b.name);
        if (ia != ib)
            return (ia < 0 ? builtinOrder().size() : ia) < (ib < 0 ? builtinOrder().size() : ib);
        return a.name < b.name;
    });
    r.loaded = true;
}

const Entry *findEntry(Registry &r, const QString &name)
{
    ensureLoaded(r);
    for (const Entry &e : std::as_const(r.entries)) {
        if (e.name == name)
            return &e;
    }
    return nullptr;
}

} // namespace

QStringList StrategyRegistry::names()
{
    Registry &r = registry();
    QMutexLocker lock(&r.mutex);
    ensureLoaded(r);
    QStringList result;
    for (const Entry &e : std::as_const(r.entries))
        result.append(e.name);
    return result;
}

bool StrategyRegistry::contains(const QString &name)
{
    Registry &r = registry();
    QMutexLocker lock(&r.mutex);
    return findEntry(r, name) != nullptr;
}

std::unique_ptr<Strategy> StrategyRegistry::create(const QString &name)
{
    Registry &r = registry();
    QMutexLocker lock(&r.mutex);
    const Entry *e = findEntry(r, name);
    return e ? std::unique_ptr<Strategy>(e->factory->create()) : nullptr;
}

QList<StrategyParameter> StrategyRegistry::parameters(const QString &name)
{
    const std::unique_ptr<Strategy> strategy = create(name);
    return strategy ? strategy->parameters() : QList<StrategyParameter>();
}

QString StrategyRegistry::description(const QString &name)
{
    Registry &r = registry();
    QMutexLocker lock(&r.mutex);
    const Entry *e = findEntry(r, name);
    return e ? e->description : QString();
}

QString StrategyRegistry::validate(const QString &name, const QVariantMap &values,
                                   bool ignoreUnknown)
{
    const std::unique_ptr<Strategy> strategy = create(name);
    if (!strategy)
        return QStringLiteral("unknown strategy '%1' (known: %2)")
            .arg(name, names().join(QStringLiteral(", ")));
    return ParameterValues::validate(strategy->parameters(), values, ignoreUnknown);
}

QString StrategyRegistry::budgetShortfall(const QString &name, const QVariantMap &values,
                                          int evaluations)
{
    const std::unique_ptr<Strategy> strategy = create(name);
    return strategy ? strategy->budgetShortfall(values, evaluations) : QString();
}

void StrategyRegistry::setPluginDirectories(const QStringList &directories)
{
    Registry &r = registry();
    QMutexLocker lock(&r.mutex);
    r.directories = directories;
    r.loaded = false; // rescan on next use
}

QStringList StrategyRegistry::loadErrors()
{
    Registry &r = registry();
    QMutexLocker lock(&r.mutex);
    ensureLoaded(r);
    return r.loadErrors;
}

QStringList StrategyRegistry::pluginDirectories()
{
    Registry &r = registry();
    QMutexLocker lock(&r.mutex);
    return r.directories;
}

} // namespace kiln
