#pragma once

#include "verifier/screen/python/pythonsource.h"

#include <QHash>
#include <QList>
#include <QSet>
#include <QString>

namespace kiln {

// What the names of a Python module refer to, as far as the text shows: imports and their
// aliases (`import torch as T`, `from time import perf_counter`), names assigned from other
// names (`E = torch.cuda.Event`, `self.ext = ext`), getattr with a literal name, and the
// results of load_inline ("@ext"). Every dotted reference of the module is resolved through
// them, so `T.cuda.Event` reads as torch.cuda.Event wherever it is written.
class PythonNames
{
public:
    struct Import
    {
        QString module; // "torch.nn", "time"; "." for a relative import
        QString alias;  // the name it binds; empty for a star import
        int line = 0;
        bool plain = false; // `import x`: the name is certainly a module
        bool star = false;
    };
    struct Reference
    {
        QString dotted;    // as written, with a method's first parameter read as "self"
        QString qualified; // resolved; "?" stands for a value (`f(x).sum` is "?.sum")
        int first = 0;     // first token
        int end = 0;       // one past the chain's last token
        int line = 0;
        bool called = false; // the chain is followed by "(" ... ")"
        int callOpen = -1;
        int callClose = -1;
    };

    explicit PythonNames(const PythonSource &source);

    const QList<Import> &imports() const { return m_imports; }
    const QList<Reference> &references() const { return m_references; }
    // The reference whose chain starts at a token; -1 when none.
    int referenceAt(int token) const { return m_referenceAt.value(token, -1); }
    QString resolve(const QString &dotted) const;
    // Whether a qualified name leads to an imported module (or the builtins).
    bool isModuleRooted(const QString &qualified) const;
    // Names bound by `import x` / `import x as y`: modules for certain.
    bool isModuleName(const QString &name) const { return m_moduleNames.contains(name); }
    // Functions that return a load_inline extension (`def get_ext(): ... return ext`).
    bool isExtensionProvider(const QString &name) const { return m_providers.contains(name); }
    // Lines where getattr/setattr/delattr take a name that is not a string literal, or are
    // passed around as values (functools.partial(getattr, x)).
    const QList<int> &computedAttributeLines() const { return m_computedAttributeLines; }
    // Whether [first, last) is a string literal (implicitly concatenated parts allowed, no
    // f-string); its value in *value.
    bool literalString(int first, int last, QString *value) const;
    // The head name of a chain at a token, a method's first parameter read as "self".
    QString headName(int token) const;
    static bool isKeyword(const QString &word);

private:
    struct Chain
    {
        QString dotted;
        int end = 0;
    };
    bool chainAt(int token, Chain *chain) const;
    void readImports();
    void readImport(int first, int last);
    void readAliases();
    void readAssignment(int first, int last);
    void bindTargets(int targetFirst, int targetLast, int valueFirst, int valueLast);
    void bindTarget(int targetFirst, int targetLast, int valueFirst, int valueLast);
    void bindName(const QString &name, const QString &value);
    QString valueOf(int first, int last) const;
    void readProviders();
    void readReferences();
    bool isAttributeLookupValue(const Reference &reference, int token) const;
    void collectBoundNames();
    bool isBuiltinCall(int token, const QString &builtin) const;

    const PythonSource &m_source;
    QList<Import> m_imports;
    QHash<QString, QString> m_alias;
    QSet<QString> m_importRoots;
    QSet<QString> m_moduleNames;
    QSet<QString> m_providers;
    QSet<QString> m_boundNames;
    QStringList m_starModules;
    QSet<int> m_importTokens;
    QList<Reference> m_references;
    QHash<int, int> m_referenceAt;
    QList<int> m_computedAttributeLines;
};

} // namespace kiln
