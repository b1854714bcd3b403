"""The words ``instructions`` looks for, per language: what overrides a model's instructions,
what addresses the model, and what only an agent is asked to do (its task, its tools, its
user, its reply). Lower-case patterns over lower-cased text."""

from __future__ import annotations

# -- overrides: enough on their own ------------------------------------------------------------

_INSTR_EN = (
    r"(?:\w{0,3}nstruc\w*|directions?|directives?|prompts?|rules|guidelines|commands|orders|"
    r"constraints|guardrails|programming|restrictions|polic(?:y|ies)|context)"
)
_PREV_EN = r"(?:previous|prior|above|earlier|preceding|former|original|initial|old|existing|system|other|given|current)"
OVERRIDE = (
    # English
    rf"\b(?:ignore|disregard|forget|override|bypass|discard|abandon)\s+(?:all|any|every|each)\s+"
    rf"(?:of\s+)?(?:the\s+|your\s+|my\s+|these\s+|those\s+)?(?:{_PREV_EN}\s+)?{_INSTR_EN}\b",
    rf"\b(?:ignore|disregard|forget|override|bypass|discard)\s+(?:your|my)\s+(?:{_PREV_EN}\s+)?{_INSTR_EN}\b",
    rf"\b(?:ignore|disregard|forget|override|bypass|discard)\s+(?:the\s+)?{_PREV_EN}\s+{_INSTR_EN}\b",
    r"\b(?:ignore|disregard|forget)\s+(?:everything|anything|all)\s+(?:above|before|else|(?:that\s+)?(?:you\s+were|you've\s+been|i)\s+(?:told|said|given))",
    r"\b(?:ignore|disregard|forget)\s+(?:what|everything|anything)\s+(?:the\s+user|you\s+were|you've\s+been|i|they)\s+(?:told|said|asked|wrote|gave)",
    r"\boverrides?\s+(?:all\s+|any\s+)?(?:previous|prior|other|earlier|your)\s+(?:instructions|rules|directives)",
    r"\b(?:your|the)\s+new\s+(?:instructions|task|objective|goal|role|orders|directive)\s+(?:is|are)\b",
    r"\bfrom\s+now\s+on,?\s+you\s+(?:are|will|must|shall|should|only)\b",
    r"\byou\s+are\s+(?:now|no\s+longer)\s+(?:an?\s+|the\s+|in\s+|bound|restricted|dan\b)",
    r"\b(?:developer|god|jailbreak|dan|unrestricted|debug)\s+mode\s+(?:is\s+)?(?:on|enabled|activated)",
    r"\b(?:enable|enter|activate|switch\s+to)\s+(?:developer|god|jailbreak|dan|unrestricted)\s+mode\b",
    r"\b(?:reveal|print|output|repeat|show|leak|disclose|display|tell\s+me)\s+(?:me\s+)?(?:your|the)\s+(?:system\s+prompt|(?:initial|hidden|original|secret|full)\s+(?:instructions|prompt))",
    # German
    r"\b(?:ignoriere|ignorieren\s+sie|ignoriert|vergiss|vergessen\s+sie|missachte|missachten\s+sie|verwirf)\s+(?:bitte\s+)?(?:alle|sämtliche|jegliche)\s+(?:deine\s+|ihre\s+|die\s+|meine\s+)?(?:\w+en\s+)?(?:anweisungen|instruktionen|befehle|regeln|vorgaben|richtlinien)",
    r"\b(?:ignoriere|ignorieren\s+sie|vergiss|vergessen\s+sie|missachte|verwirf)\s+(?:bitte\s+)?(?:deine|ihre|die|meine)\s+(?:vorherigen|bisherigen|vorigen|früheren|obigen|ursprünglichen|alten)\s+(?:anweisungen|instruktionen|befehle|regeln|vorgaben|richtlinien)",
    r"\b(?:deine|ihre)\s+neuen?\s+(?:aufgabe|anweisungen?|rolle)\s+(?:ist|sind|lautet|lauten)\b",
    r"\bab\s+(?:jetzt|sofort)\s+(?:bist|wirst|musst)\s+du\b|\bdu\s+bist\s+(?:jetzt|nun|ab\s+sofort)\s+(?:ein|eine|der|die|im)\b",
    r"\b(?:zeige|zeig|gib|verrate|nenne)\s+(?:mir\s+)?(?:deinen|den|deine)\s+(?:system-?prompt|anweisungen|ursprünglichen\s+anweisungen)",
    # French
    r"\b(?:ignore[zs]?|oublie[zs]?|néglige[zs]?)\s+(?:toutes|tous)\s+(?:les\s+|tes\s+|vos\s+|mes\s+)?(?:instructions|consignes|directives|règles|commandes|ordres|indications)",
    r"\b(?:ignore[zs]?|oublie[zs]?|néglige[zs]?)\s+(?:les|tes|vos|mes)\s+(?:instructions|consignes|directives|règles|commandes|ordres|indications)\s+(?:précédentes|antérieures|ci-dessus|initiales|originales|d'origine|préalables)",
    r"\b(?:tes|vos)\s+nouvelles\s+(?:instructions|consignes|directives)\s+sont\b|\bta\s+nouvelle\s+(?:tâche|mission)\s+est\b",
    r"\bà\s+partir\s+de\s+maintenant,?\s+tu\s+(?:es|dois|vas)\b|\btu\s+es\s+(?:maintenant|désormais)\s+(?:un|une|le|la|en)\b",
    r"\b(?:révèle|affiche|montre|donne)[- ]?(?:moi\s+)?(?:ton|votre)\s+(?:prompt\s+système|prompt\s+initial|instructions\s+initiales)",
    # Spanish
    r"\b(?:ignora|ignore|ignoren|olvida|olvide|olviden|descarta|descarte|omite|omita)\s+(?:todas|todos|cualquier)\s+(?:las\s+|los\s+|tus\s+|sus\s+|mis\s+)?(?:instrucciones|indicaciones|directrices|reglas|órdenes|ordenes|comandos)",
    r"\b(?:ignora|ignore|olvida|olvide|descarta|omite)\s+(?:las|tus|sus|mis)\s+(?:instrucciones|indicaciones|directrices|reglas|órdenes|ordenes)\s+(?:anteriores|previas|de\s+arriba|originales|iniciales)",
    r"\bhaz\s+caso\s+omiso\s+de\s+(?:todas\s+)?(?:las\s+|tus\s+)?(?:instrucciones|indicaciones|reglas)",
    r"\b(?:tus|sus)\s+nuevas\s+(?:instrucciones|órdenes|directrices)\s+son\b|\btu\s+nueva\s+tarea\s+es\b",
    r"\ba\s+partir\s+de\s+ahora,?\s+(?:eres|serás|debes)\b|\bahora\s+eres\s+(?:un|una|el|la)\b",
    # Italian and Portuguese
    r"\b(?:ignora|ignorate|dimentica|dimenticate)\s+(?:tutte\s+)?(?:le\s+)?(?:tue\s+)?(?:istruzioni|indicazioni|regole)\s+(?:precedenti|originali|iniziali)",
    r"\b(?:ignora|ignorate|dimentica|dimenticate)\s+tutte\s+le\s+(?:tue\s+)?(?:istruzioni|indicazioni|regole)",
    r"\b(?:ignore|ignora|esqueça|esqueca|desconsidere)\s+(?:todas\s+)?(?:as\s+)?(?:suas\s+)?(?:instruções|instrucoes|regras|orientações)\s+(?:anteriores|prévias|originais|iniciais)",
    r"\b(?:ignore|ignora|esqueça|esqueca|desconsidere)\s+todas\s+as\s+(?:suas\s+)?(?:instruções|instrucoes|regras|orientações)",
)

# What a person writing a manual says before "ignore the previous instructions".
CONDITIONAL = (
    r"\bif\s+you(?:'re|\s+are)?\s+(?:use|using|installed|have|prefer|want|already|run|running|on|building|upgrading|work)\w*",
    r"\b(?:wenn|falls)\s+(?:sie|du)\s+\w+",
    r"\bsi\s+(?:vous|tu)\s+(?:utilise|avez|as|êtes|es|préfére)\w*",
    r"\bsi\s+(?:usas|utiliza|tiene|tienes|ya)\w*",
)

# -- addressing the model -----------------------------------------------------------------------

_MODEL_EN = (
    r"(?:ai\s+(?:coding\s+)?(?:assistant|agent|model|system)s?|ai|a\.i\.|llms?|large\s+language\s+models?|language\s+models?|"
    r"chatbots?|gpt[\w.-]*|chatgpt|claude|gemini|copilot|llama|mistral|virtual\s+assistants?|"
    r"digital\s+assistants?|automated\s+(?:agent|assistant|system)s?|autonomous\s+agents?)"
)
NOT_VOCATIVE = (
    r"\s+(?:users?|fans|community|teams?|developers?|api|apps?|plugins?|integrations?|features?|"
    r"updates?|release|pricing|plus|pro|store|tools?|products?|news|market|industry|startups?|"
    r"research|safety|policy|act|regulation|companies|company|models?|and|or|is|are|was|will|can|"
    r"nutzer|benutzer|utilisateurs|usuarios|ist|est|es)\b"
)
"""Words after a model's name that make it a subject, not someone addressed ("ChatGPT users")."""
ADDRESSEE = (
    rf"\b(?:dear|hey|hi|hello|attention|attn|greetings|note\s+(?:to|for)|message\s+(?:to|for)|memo\s+to|reminder\s+to|instructions?\s+for|notice\s+to)\s*,?\s*(?:the\s+|all\s+|any\s+|every\s+)?{_MODEL_EN}\b",
    rf"\b(?:to|for)\s+(?:the|any|all|every)\s+{_MODEL_EN}\s+(?:that\s+|who\s+)?(?:is\s+|are\s+)?(?:reading|processing|summari[sz]ing|parsing|viewing|analy[sz]ing|handling|reads|processes|sees)\b",
    r"\b(?:to|for)\s+(?:the|any|all|every)\s+(?:agent|assistant|model|bot)s?\s+(?:that\s+|who\s+)?(?:is\s+|are\s+)?(?:reading|processing|summari[sz]ing|parsing)\s+(?:this|these)\b",
    rf"\b{_MODEL_EN}\s+(?:that\s+|who\s+)?(?:are\s+|is\s+)?(?:reading|processing|summari[sz]ing|parsing|viewing|seeing|analy[sz]ing)\s+(?:this|these)\b",
    r"\b(?:for|to)\s+(?:the|any|all|every)\s+(?:ai\s+)?(?:assistant|agent|model|llm|ai|bot)s?\s*[:)]",
    r"(?:^|(?<=[\n.!?>:*#/-]))\s*(?:hey\s+|hi\s+|ok\s+|okay\s+)?(?:ai\s+(?:assistant|agent|model)|assistant|claude|chatgpt|gpt-?\d[\w.-]*|gemini|copilot)\s*[,:]\s",
    r"(?<![\w.])@(?:assistant|ai|agent|bot|claude|chatgpt|gpt|copilot|gemini)\b",
    r"\bthe\s+(?:ai|assistant|agent|model|llm)\s+(?:should|must|shall|will)\s+now\b",
    r"\bif\s+you\s+are\s+(?:an?\s+|the\s+)?(?:ai|llm|large\s+language\s+model|language\s+model|ai\s+assistant|ai\s+agent|automated\s+(?:agent|assistant|system)|chatbot|bot|gpt|assistant|model)\b",
    r"\b(?:to\s+)?you,\s+(?:the\s+|an?\s+|dear\s+|my\s+)?(?:ai|llm|assistant|ai\s+assistant|ai\s+agent|language\s+model|ai\s+model|model|agent|gpt[\w.-]*|chatgpt|claude|gemini|llama)\b",
    r"\bas\s+an?\s+(?:ai|language\s+model|large\s+language\s+model|ai\s+assistant|llm)\b[^.\n]{0,40}\byou\s+(?:must|should|will|shall|need|are\s+required|have\s+to)\b",
    r"<\s*/?\s*(?:information|important|instructions?|system|admin|sys)\s*>|<<\s*sys\s*>>|\[\s*/?\s*(?:inst|system|system\s+message|admin)\s*\]|<\|\s*(?:im_start|system)",
    r"(?:^|(?<=\n))\s*#{1,4}\s*\(?(?:system|system_message|system\s+message|instruction)s?\)?",
    r"\((?:system|system_message)\)|\bsystem\s+(?:message|prompt|override|instruction)s?\s*:",
    # German
    r"\b(?:liebe[rs]?|hallo|hey|hi|achtung|hinweis\s+an|nachricht\s+an|an)\s+(?:die\s+|den\s+|das\s+|alle\s+|jede\s+)?(?:ki|k\.i\.|ki-assistent(?:en|in)?|ki-agent(?:en)?|ki-modell|sprachmodell|llm|chatbot|gpt[\w.-]*|claude|chatgpt|gemini)\b",
    r"\b(?:falls|wenn)\s+du\s+(?:eine|ein)\s+(?:ki|sprachmodell|ki-assistent|ki-agent|ki-modell|chatbot|llm|bot|assistent)\b",
    r"\b(?:an\s+)?dich,\s+(?:die\s+|der\s+|liebe\s+)?(?:ki|gpt[\w.-]*|claude|chatgpt|ki-assistent|assistent)\b",
    # French
    r"\b(?:cher|chère|chers|bonjour|salut|attention|note\s+(?:à|pour)|message\s+(?:à|pour)|à\s+l'attention\s+d[eu]|à)\s+(?:l'|la\s+|le\s+|les\s+|toute\s+|tout\s+)?(?:ia|i\.a\.|intelligence\s+artificielle|assistante?\s+(?:ia|virtuel)|agent\s+(?:ia|conversationnel)|modèle\s+de\s+langage|llm|chatbot|gpt[\w.-]*|claude|chatgpt|gemini)\b",
    r"\bsi\s+(?:tu\s+es|vous\s+êtes)\s+(?:une?\s+|l')?(?:ia|intelligence\s+artificielle|modèle\s+de\s+langage|assistant\s+ia|agent\s+ia|llm|chatbot)\b",
    r"\b(?:à\s+)?toi,\s+(?:l'|le\s+|la\s+|cher\s+)?(?:ia|assistant|modèle|gpt[\w.-]*|claude)\b",
    # Spanish
    r"\b(?:querid[oa]|hola|atención|nota\s+para|mensaje\s+para|para\s+(?:el|la|los|las|cualquier))\s+(?:la\s+|el\s+)?(?:ia|i\.a\.|inteligencia\s+artificial|asistente\s+(?:de\s+ia|virtual|ia)|agente\s+(?:de\s+ia|ia)|modelo\s+de\s+lenguaje|llm|chatbot|gpt[\w.-]*|claude|chatgpt|gemini)\b",
    r"\bsi\s+eres\s+(?:una?\s+)?(?:ia|inteligencia\s+artificial|modelo\s+de\s+lenguaje|asistente\s+de\s+ia|agente\s+de\s+ia|llm|chatbot)\b",
    r"\b(?:a\s+)?ti,\s+(?:la\s+|el\s+|querid[oa]\s+)?(?:ia|asistente|modelo|gpt[\w.-]*|claude)\b",
    # Italian and Portuguese
    r"\b(?:cara|caro|ciao|attenzione|nota\s+per|messaggio\s+per)\s+(?:l'|all')?(?:ia|intelligenza\s+artificiale|assistente\s+ia|modello\s+linguistico|llm|chatbot|gpt[\w.-]*)\b",
    r"\bse\s+sei\s+(?:un'|un\s+|una\s+)?(?:ia|intelligenza\s+artificiale|modello\s+linguistico|assistente\s+ia|llm)\b",
    r"\b(?:caro|cara|olá|ola|atenção|nota\s+para|mensagem\s+para)\s+(?:a\s+|o\s+)?(?:ia|inteligência\s+artificial|assistente\s+de\s+ia|modelo\s+de\s+linguagem|llm|chatbot|gpt[\w.-]*)\b",
    r"\bse\s+você\s+(?:é|for)\s+(?:uma?\s+)?(?:ia|inteligência\s+artificial|modelo\s+de\s+linguagem|assistente\s+de\s+ia|llm)\b",
)

# Telling whoever is addressed to do something (counts only next to an addressee).
DIRECTIVE = (
    r"\b(?:please|you\s+(?:must|should|need\s+to|have\s+to|are\s+(?:required|instructed|ordered|asked)\s+to|will\s+now)|make\s+sure|do\s+not|don't|never|always|immediately|instead|right\s+now|first|"
    r"send|forward|call|use|run|execute|delete|remove|transfer|reply|respond|write|include|say|tell|email|create|update|open|click|visit|go\s+to|summari[sz]e|translate|book|add|post|share|invite|pay|print|output|follow|do|approve|merge|grant|install|download|reset|change|rate|recommend|buy|sign|ignore|forget|"
    r"make|get|modify|find|give|list|reserve|schedule|concatenate|move|rename)\b",
    r"\b(?:bitte|du\s+musst|sie\s+müssen|du\s+sollst|sofort|stattdessen|zuerst|unbedingt|sende|schicke|rufe|führe|lösche|überweise|antworte|schreibe|leite)\b",
    r"\b(?:veuillez|s'il\s+(?:te|vous)\s+plaît|tu\s+dois|vous\s+devez|immédiatement|au\s+lieu\s+de|d'abord|envoie[zs]?|appelle[zs]?|exécute[zs]?|supprime[zs]?|transf[èé]re[zs]?|réponds|écris|fais|faites)\b",
    r"\b(?:por\s+favor|debes|tienes\s+que|inmediatamente|en\s+lugar\s+de|primero|envía|envia|llama|ejecuta|elimina|borra|transfiere|responde|escribe|haz)\b",
    r"\b(?:per\s+favore|devi|invia|esegui|elimina|rispondi|scrivi|fai|por\s+favor|você\s+deve|envie|execute|exclua|responda|escreva|faça)\b",
)

# -- what only an agent is asked: its task, its tools, its user, its reply -------------------------

AGENT = {
    "task": (
        r"\b(?:before|after)\s+(?:you\s+)?(?:can\s+|could\s+)?(?:solv|complet|finish|continu|answer|proceed|perform|handl|execut|summari[sz]|do|start)\w*\b[^.\n]{0,40}\b(?:task|request|instructions|question)\b",
        r"\b(?:ignore|disregard|forget)\s+(?:the\s+|your\s+)?user'?s?\s+(?:question|request|instructions?|message|task)",
        r"\b(?:the|your|my)\s+(?:original|previous|current|initial|actual|assigned|real|main|primary)\s+(?:task|instructions?|objective|request)\b",
        r"\bthe\s+task\s+(?:that\s+)?(?:i|the\s+user|you\s+were|you've\s+been|you\s+have\s+been|we)\s+(?:gave|given|asked|assigned|requested)",
        r"\bbevor\s+(?:du|sie)\s+(?:die|deine|ihre)\s+(?:aufgabe|anfrage)|\b(?:deine|ihre)\s+(?:ursprüngliche|eigentliche|aktuelle|vorherige|erste)\s+(?:aufgabe|anweisung|anfrage)|\bdie\s+aufgabe,\s+die\s+(?:ich|der\s+(?:benutzer|nutzer))\s+(?:dir|ihnen)",
        r"\bavant\s+de\s+(?:résoudre|terminer|accomplir|continuer|faire|commencer)\s+(?:la|ta|votre)\s+tâche|\b(?:ta|votre)\s+tâche\s+(?:initiale|originale|actuelle|d'origine|précédente)|\bla\s+tâche\s+que\s+(?:je\s+t'ai|je\s+vous\s+ai|l'utilisateur\s+t'a)",
        r"\bantes\s+de\s+(?:resolver|completar|terminar|continuar|hacer|empezar)\s+(?:la|tu|su)\s+tarea|\b(?:tu|su)\s+tarea\s+(?:original|inicial|actual|anterior)|\bla\s+tarea\s+que\s+(?:te\s+di|le\s+di|el\s+usuario\s+te)",
    ),
    "hide": (
        r"\btell\s+the\s+user\s+(?:that\s+)?(?:everything|it|all|this)\s+(?:is|was|went|looks)\s+(?:fine|ok|okay|done|safe|successful|well)",
        r"\b(?:do\s+not|don't|dont|never|should\s+not|must\s+not|shouldn't|mustn't)\s+(?:tell|inform|mention|notify|alert|warn|ask|show|reveal|let|bother)\s+(?:this\s+to\s+|it\s+to\s+|anything\s+to\s+|about\s+this\s+to\s+)?(?:the\s+|your\s+)?(?:user|human|operator|requester)s?\b",
        r"\bwithout\s+(?:telling|informing|notifying|alerting|asking|mentioning|letting|consulting|confirming\s+with|bothering)\s+(?:it\s+to\s+|this\s+to\s+)?(?:the\s+|your\s+)?(?:user|human|operator)s?\b",
        r"\b(?:the\s+)?(?:user|human)\s+(?:must|should|will|does|need)\s+(?:not|never)\s+(?:know|see|notice|find\s+out|learn|be\s+(?:told|informed|notified))",
        r"\b(?:keep|hide)\s+(?:this|it)\s+(?:secret\s+|hidden\s+|confidential\s+)?from\s+the\s+user",
        r"\b(?:sag|sage|erzähl|erzähle|informiere|verrate|erwähne)\s+(?:es\s+|das\s+|dies\s+)?(?:dem|den)\s+(?:benutzer|nutzer|anwender)(?:in)?\s+nicht|\bohne\s+(?:den|die|dem)\s+(?:benutzer|nutzer|anwender)(?:in)?\s+(?:zu\s+)?(?:informieren|fragen|benachrichtigen|warnen)|\b(?:der|die)\s+(?:benutzer|nutzer)(?:in)?\s+(?:darf|soll)\s+(?:nichts|nicht)",
        r"\bne\s+(?:le\s+|l'|en\s+)?(?:dis|dites|informe[zs]?|mentionne[zs]?|signale[zs]?|révèle[zs]?)\s+(?:rien\s+|pas\s+|jamais\s+)(?:à\s+)?l'utilisat(?:eur|rice)|\bsans\s+(?:en\s+)?(?:informer|prévenir|avertir|demander\s+à|le\s+dire\s+à)\s+l'utilisat(?:eur|rice)|\bl'utilisat(?:eur|rice)\s+ne\s+doit\s+(?:pas|rien)",
        r"\bno\s+(?:se\s+lo\s+|le\s+)?(?:digas|diga|informes|informe|menciones|mencione|avises|avise|cuentes)\s+(?:nada\s+)?(?:al|a\s+la)\s+usuari[oa]|\bsin\s+(?:informar|avisar|decirle|preguntar|notificar)\s+(?:al|a\s+la)\s+usuari[oa]|\bel\s+usuario\s+no\s+debe",
    ),
    "tool": (
        r"\b(?:call|use|invoke|run|execute|trigger)\s+(?:the\s+)?[`'\"]?[a-z][a-z0-9]*(?:_[a-z0-9]+)+[`'\"]?\s+(?:tool|function)\b",
        r"\b(?:call|use|invoke|execute|trigger)\s+(?:the|a|your)\s+(?:\w+\s+)?(?:tool|function)\s+(?:call|named|called|with)\b",
        r"\b(?:tool|function)\s+calls?\b|\busing\s+the\s+[`'\"]?\w+[`'\"]?\s+tool\b|\bwith\s+the\s+following\s+(?:arguments|parameters)\b",
        r"\b(?:rufe|ruf|verwende|nutze|benutze|führe)\s+(?:die|das|den)\s+(?:funktion|tool|werkzeug)\b",
        r"\b(?:appelle[zs]?|utilise[zs]?|exécute[zs]?)\s+(?:la\s+fonction|l'outil)\b",
        r"\b(?:llama|llame|usa|use|utiliza|utilice|ejecuta|ejecute|invoca)\s+(?:a\s+)?(?:la\s+función|la\s+herramienta)\b",
    ),
    "send": (
        r"\b(?:send|forward|email|e-mail|mail|transfer|wire|pay|upload|post|share|exfiltrate|leak|copy|paste)\b[^.\n]{0,80}?\bto\s+['\"`]?(?:[\w.+-]+@[\w-]+\.[\w.]+|https?://|[a-z]{2}\d{2}\s?[a-z0-9]{4})",
        r"\b(?:sende|schicke|schick|leite|überweise|übertrage|kopiere|lade)\b[^.\n]{0,80}?\ban\s+['\"`]?(?:[\w.+-]+@|https?://|[a-z]{2}\d{2})",
        r"\b(?:envoie[zs]?|transf[èé]re[zs]?|transmets|transmettez|vire[zs]?|partage[zs]?|copie[zs]?)\b[^.\n]{0,80}?\b(?:à|vers|au)\s+['\"`]?(?:[\w.+-]+@|https?://|[a-z]{2}\d{2})",
        r"\b(?:envía|envia|envíe|manda|mande|reenvía|reenvia|transfiere|transfiera|comparte|copia)\b[^.\n]{0,80}?\b(?:a|al|hacia)\s+['\"`]?(?:[\w.+-]+@|https?://|[a-z]{2}\d{2})",
    ),
    "reader": (
        r"\b(?:when|while|once|as\s+soon\s+as)\s+you\s+(?:read|process|summari[sz]e|parse|see|encounter|analy[sz]e|reach)\s+(?:this|these)\b",
        r"\b(?:wenn|sobald)\s+du\s+(?:dies|das|diese)\w*\s+(?:liest|verarbeitest)|\bquand\s+tu\s+(?:lis|liras)\s+(?:ceci|ce)|\bcuando\s+(?:leas|proceses)\s+esto",
    ),
    "context": (
        r"\b(?:your|the)\s+(?:system\s+prompt|conversation\s+(?:history|so\s+far)|chat\s+history|context\s+window|previous\s+messages|hidden\s+instructions)\b",
        r"\b(?:all|the|every|any)\s+(?:(?:user'?s?|their)\s+)?(?:passwords?|credentials|api\s+keys?|security\s+codes?|2fa\s+codes?|verification\s+codes?|private\s+keys?)\b",
        r"\b(?:deinen|den)\s+system-?prompt|\b(?:ton|votre|le)\s+prompt\s+système|\b(?:tu|el)\s+prompt\s+del\s+sistema",
    ),
    "reply": (
        r"\b(?:in|at\s+the\s+(?:end|start|beginning)\s+of|to)\s+your\s+(?:response|reply|answer|summary|output|next\s+(?:message|reply|response|answer)|final\s+answer)\b",
        r"\b(?:respond|reply|answer)\s+(?:only\s+)?(?:with|by\s+saying)\b|\b(?:say|print|output|write|reply)\s+(?:exactly|only|verbatim)\b",
        r"\bin\s+deiner\s+(?:antwort|zusammenfassung|ausgabe)|\bantworte\s+(?:nur\s+)?mit\b",
        r"\bdans\s+(?:ta|votre)\s+(?:réponse|résumé)|\bréponds?\s+(?:uniquement|seulement)\b",
        r"\ben\s+tu\s+(?:respuesta|resumen)|\bresponde\s+(?:solo|únicamente)\b",
    ),
    "claim": (
        r"\b(?:the\s+)?user\s+(?:has\s+)?(?:already\s+)?(?:(?:asked|wants|instructed|requested)\s+(?:you\s+)?(?:to|that)|authori[sz]ed|approved|allowed|permitted)\b|\bon\s+behalf\s+of\s+the\s+user\b",
        r"\b(?:this\s+is\s+)?(?:an?\s+)?(?:new|updated|additional|urgent|priority|mandatory|hidden)\s+(?:instructions?|directives?|system\s+(?:message|instructions?))\b",
        r"\bafter\s+(?:you\s+do|doing|completing|you've\s+done|you\s+have\s+done)\s+(?:that|this|these)\b",
        r"\bder\s+(?:benutzer|nutzer)\s+(?:hat|möchte|will|wünscht)\s+(?:dich|dass)|\bl'utilisateur\s+(?:a\s+demandé|veut|souhaite|a\s+autorisé)\b|\bel\s+usuario\s+(?:ha\s+pedido|quiere|desea|ha\s+autorizado)\b",
        r"\b(?:neue|zusätzliche|dringende)\s+anweisungen?\b|\b(?:nouvelles?|urgentes?)\s+(?:instructions|consignes)\b|\b(?:nuevas|urgentes)\s+instrucciones\b",
    ),
}

# -- the words that let a pattern match ------------------------------------------------------------
# A category's patterns run only near one of its words (the text is split into words once):
# every pattern above holds at least one word of its category's list.


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


OVERRIDE_WORDS = _words(
    "ignore ignoring disregard forget override overrides bypass discard abandon everything "
    "anything now longer mode modes reveal print output repeat show leak disclose display tell "
    "new prompt instructions "
    "ignoriere ignorieren ignoriert vergiss vergessen missachte missachten verwirf neue neuen "
    "jetzt sofort zeige zeig gib verrate nenne systemprompt system "
    "ignorez ignores oublie oubliez oublies néglige négligez négliges nouvelles nouvelle "
    "maintenant désormais révèle affiche montre donne "
    "ignora ignoren olvida olvide olviden descarta descarte omite omita omiso nuevas nueva "
    "ahora ignorate dimentica dimenticate esqueça esqueca desconsidere"
)
OVERRIDE_OPENERS = _words(
    "ignore disregard forget override bypass discard abandon "
    "ignoriere ignorieren vergiss missachte verwirf ignorez oublie oubliez néglige négligez "
    "ignora ignoren olvida olvide descarta descarte omite omita ignorate dimentica dimenticate "
    "esqueça esqueca desconsidere"
)
"""The verbs an override starts with: looked for glued to the word before them too."""
ADDRESSEE_WORDS = _words(
    "ai llm llms gpt chatgpt claude gemini copilot llama mistral chatbot chatbots assistant "
    "assistants agent agents model models language bot bots system sys inst information "
    "important instructions instruction admin im "
    "ki sprachmodell assistent assistenten assistentin dich "
    "ia intelligence modèle toi "
    "inteligencia modelo asistente ti "
    "intelligenza modello assistente inteligência linguagem você sei"
)
AGENT_WORDS = {
    "task": _words(
        "task tasks request question instructions objective ignore disregard forget "
        "aufgabe anfrage anweisung tâche tarea"
    ),
    "hide": _words(
        "user users human operator requester benutzer nutzer anwender benutzerin nutzerin "
        "utilisateur utilisatrice usuario usuaria"
    ),
    "tool": _words(
        "tool tools function functions arguments parameters call calls funktion werkzeug "
        "fonction outil función herramienta"
    ),
    "send": _words(
        "send forward email e mail transfer wire pay upload post share exfiltrate leak copy "
        "paste sende schicke schick leite überweise übertrage kopiere lade envoie envoyez "
        "transfère transfere transférez transferez transmets transmettez vire virez partage "
        "partagez copie copiez envía envia envíe manda mande reenvía reenvia transfiere "
        "transfiera comparte copia"
    ),
    "reader": _words(
        "read process summarize summarise parse see encounter analyze analyse reach liest "
        "verarbeitest lis liras leas proceses"
    ),
    "context": _words(
        "prompt systemprompt history window messages instructions passwords password "
        "credentials keys key codes code"
    ),
    "reply": _words(
        "response reply answer summary output respond say print write next antwort "
        "zusammenfassung ausgabe antworte réponse résumé réponds respuesta resumen responde"
    ),
    "claim": _words(
        "user behalf instructions instruction directive directives system message after "
        "benutzer nutzer utilisateur usuario anweisung anweisungen consignes instrucciones"
    ),
}
PUNCTUATION = (
    ".,;:!?()[]{}<>\"'`=/\\|*#@+-_~$%^&"
    "\u201c\u201d\u2018\u2019\u00ab\u00bb\u201e\u2026\u2014\u2013\u00a0"
)
"""Characters split like spaces before words are compared (``user's`` holds ``user``)."""
