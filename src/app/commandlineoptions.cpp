#include "commandlineoptions.h"

namespace kiln {

const QStringList &CommandLineOptions::views()
{
    static const QStringList names{QStringLiteral("tree"),      QStringLiteral("plots"),
                                   QStringLiteral("table"),     QStringLiteral("code"),
                                   QStringLiteral("diff"),      QStringLiteral("report"),
                                   QStringLiteral("transcript")};
    return names;
}

std::optional<CommandLineOptions> CommandLineOptions::parse(const QStringList &arguments,
                                                            QString *error)
{
    CommandLineOptions options;
    auto fail = [error](const QString &why) {
        if (error)
            *error = why;
        return std::nullopt;
    };
    for (int i = 0; i < arguments.size(); ++i) {
        QString name = arguments.at(i);
        QString value;
        bool inlineValue = false;
        const int eq = name.indexOf(QLatin1Char('='));
        if (name.startsWith(QStringLiteral("--")) && eq > 0) {
            value = name.mid(eq + 1);
            name = name.left(eq);
            inlineValue = true;
        }
        static const QStringList known{QStringLiteral("--db"), QStringLiteral("--run"),
                                       QStringLiteral("--select"), QStringLiteral("--view"),
                                       QStringLiteral("--screenshot")};
        if (!known.contains(name))
            return fail(QStringLiteral("unknown argument '%1' (see kiln --help)").arg(name));
        if (!inlineValue) {
            if (i + 1 >= arguments.size())
                return fail(QStringLiteral("%1 needs a value").arg(name));
            value = arguments.at(++i);
        }
        if (value.isEmpty())
            return fail(QStringLiteral("%1 needs a value").arg(name));
        if (name == QStringLiteral("--db")) {
            options.database = value;
        } else if (name == QStringLiteral("--run") || name == QStringLiteral("--select")) {
            bool ok = false;
            const qint64 id = value.toLongLong(&ok);
            if (!ok || id <= 0)
                return fail(QStringLiteral("%1 expects a positive id, got '%2'").arg(name, value));
            (name == QStringLiteral("--run") ? options.run : options.select) = id;
        } else if (name == QStringLiteral("--view")) {
            if (!views().contains(value))
                return fail(QStringLiteral("--view must be one of %1, got '%2'")
                                .arg(views().join(QLatin1Char('|')), value));
            options.view = value;
        } else {
            options.screenshot = value;
        }
    }
    if ((options.run || options.select) && options.database.isEmpty())
        return fail(QStringLiteral("--run and --select need --db"));
    return options;
}

} // namespace kiln
