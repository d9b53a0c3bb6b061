"""Chat talk that is no fact: catching up, logistics, support, framing, thanks.

Friends' chats are full of kind words that say nothing an agent needs later: "It's been
ages since we talked", "I'll keep you posted", "I'm always here for you", "Your support
means a lot", "That cup is so cute". ``is_talk`` recognises a whole sentence of it; the
lead and trail patterns (used by ``sentences.strip_edges``) cut framing around a fact:
"Wanted to let you know that I ...", "... , it was amazing".
"""

from __future__ import annotations

import re

# Framing before the news itself: "Wanted to let you know that I ...", "Got some great news
# to share - I ...", "You won't believe it - I ...".
_NEWS_LEAD_RE = re.compile(
    r"(?:^|(?<=, )|(?<= - ))(?:(?:i|i've|i have)\s+)?(?:just\s+|also\s+|really\s+)?(?:wanted to|want to|have to|gotta|got to|had to)\s+"
    r"(?:let (?:you|ya) know|tell (?:you|ya)|share(?: with (?:you|ya))?|say)(?:\s+that)?,?\s+"
    r"(?=(?:i|i'm|i've|i'd|im|my|we|we're|we've|our)\b)|"
    r"^(?:(?:i've|i have|i)\s+)?(?:got|have)\s+(?:some\s+)?(?:great|good|big|exciting|amazing|awesome)?\s*news"
    r"(?:\s+to\s+share)?\s*(?:\s-\s|[-:,!.\u2026]+)\s*|"
    r"^(?:you won't believe (?:it|this|what happened)|guess what)\s*(?:\s-\s|[-:,!.\u2026]+)\s*|"
    r"^(?:(?:some|a)\s+)?(?:\w+\s+)?(?:something|thing|things)(?:\s+\w+)?\s+happened(?:\s+to\s+(?:me|us))?"
    r"\s*(?:\s-\s|[-:!\u2026]+)\s*(?=\S)|"
    r"^(?:(?:i'm|im|i am)\s+)?(?:so\s+|really\s+|super\s+)?(?:happy|glad|thrilled|stoked|proud)\s+for\s+(?:you|ya)"
    r"(?:\s+too)?\s*(?:\s-\s|[,!.\u2026]+)\s*(?=\S)|"
    r"^(?:(?:i'm|im|i am)\s+)?(?:so\s+|really\s+|super\s+)?(?:excited|happy|thrilled|stoked)\s+to\s+"
    r"(?:tell|share with|let) (?:you|ya)(?:\s+know)?(?:\s+that)?,?\s+(?=(?:i|i'm|i've|my|we|we're|our)\b)",
    re.IGNORECASE)
# A look at what the other person showed, before the speaker's own news: "That skyline
# looks amazing - I've been wanting to visit NYC".
_REACTION_DASH_RE = re.compile(
    r"^(?:(?:wow|oh|aw+|omg|ooh)[,!]?\s+)?(?:that|this|the|those|these|it|your)\b[\w\s'&-]{0,40}?\b(?:looks?|sounds?|"
    r"seems?|is|are|was)\s+(?:so\s+|really\s+|super\s+|pretty\s+|just\s+)?(?:amazing|awesome|great|cool|fun|nice|"
    r"wonderful|fantastic|incredible|beautiful|gorgeous|stunning|lovely|delicious|cute|adorable)\s+-\s+"
    r"(?=(?:i|i'm|i've|i'd|im|my|we|we're|we've|our)\b)", re.IGNORECASE)
_POINTER_RE = re.compile(r"\b(?:it|its|it's|that|this|them|those|these|there|one)\b", re.IGNORECASE)


def cut_reaction_lead(s: str) -> str:
    """The speaker's news without the look before it; kept whole when the news points back
    at what was looked at ("The cake was delicious - my mom made it")."""
    m = _REACTION_DASH_RE.match(s)
    return s[m.end():] if m and not _POINTER_RE.search(s[m.end():]) else s


# How it felt, tacked on at the end: ", it was amazing", " - it's awesome", ", which is great".
_TRAIL_FEELING_RE = re.compile(
    r"(?:,|\s-)\s*(?:(?:and\s+)?(?:it was|it's|it is|it's been|that was|that's|that is|that would be|it'd be|"
    r"it would be|which (?:is|was))\s+|so\s+|such\s+)(?:so\s+|really\s+|super\s+|"
    r"just\s+|totally\s+|pretty\s+)?(?:amazing|awesome|great|cool|fun|nice|wonderful|fantastic|incredible|"
    r"a blast|exciting|excited|magical|inspiring)\s*[.!\u2026]*$|"
    r"\s-\s*(?:i\s+)?(?:can't wait|love it|congrats|hang in there)\s*[.!\u2026]*$|"
    r"(?:,|\s-)\s*(?:and\s+)?(?:it|that|this)\s+(?:really\s+)?(?:means|meant)\s+(?:a lot|so much|the world|"
    r"everything)(?:\s+to\s+me)?\s*[.!\u2026]*$", re.IGNORECASE)
# Encouragement tacked on at the end: "I know the stress of exams, but you got this!",
# "Keep me posted - you got this!". "You got this" says the listener can do it, not that
# they got something: as a fact about them it would be false.
_TRAIL_CHEER_RE = re.compile(
    r"(?:,|\s-|\s\u2013)\s*(?:(?:but|and|so)\s+)?(?:you|ya|u)(?:'ve|\s+have)?\s+(?:totally\s+|so\s+)?got\s+this"
    r"(?:,?\s+(?:bud|buddy|man|dude|girl|friend|[A-Z][a-z]+))?\s*[.!\u2026]*$|"
    r"(?:,|\s-|\s\u2013)\s*(?:(?:so|and|just)\s+)?(?:keep (?:it up|going|on \w+ing|at it|pushing|shining|rocking)|"
    r"don't (?:stop|give up|quit)|never give up|let me know what (?:you|ya|u) think|hang in there)\b[^.!?,;-]*"
    r"(?:,?\s+(?:bud|buddy|man|dude|girl|friend|[A-Z][a-z]+))?\s*[.!\u2026]*$", re.IGNORECASE)
# What is left when the cheer is cut off "Even when it's tough, you got this!": no clause.
CHEER_LEFT_RE = re.compile(r"^(?:even\s+)?(?:when|if|though|although|because|while|whenever|no matter)\b",
                           re.IGNORECASE)
# Thanks for sharing, said as "it": "It means a lot to share this with you", "It means so
# much having you in my corner" -- talk between the two, pointing at nothing.
_MEANS_A_LOT_RE = re.compile(r"^(?:and\s+)?(?:it|that|this)\s+(?:really\s+|truly\s+)?(?:means|meant)\s+(?:a lot|a ton|so much|"
                             r"the world|everything)(?:\s+to\s+me)?(?:\s+(?:to\s+(?:share|hear|have|know|see)|having|"
                             r"you)\b[^.!?]*)?[.!?\u2026]*$", re.IGNORECASE)
# Thanks for the listener's words: "Your support means a lot, ...", "Ur words mean so much!".
_GRATITUDE_RE = re.compile(
    r"^(?:your|ur)\s+(?:[\w'-]+\s+){0,3}?(?:(?:means?|meant)\s+(?:a lot|a ton|so much|the world|"
    r"everything|heaps)|(?:really\s+)?matters?(?:\s+(?:so much|a lot))?)(?:\s+to\s+me)?(?:\s+too|\s+as well)?(?:\s*[,.!\u2026-]+\s*|\s*$)", re.IGNORECASE)

# Catching up: "A lot's happened since we last chatted", "It's been super busy here".
_CATCH_UP_RE = re.compile(
    r"^(?:(?:so\s+)?(?:a lot|lots|so much|much|tons|a ton|loads|some big things|big things|plenty)"
    r"(?:'s|\s+has|\s+have)?\s+(?:been\s+)?(?:happened|happening|going on|changed)|"
    r"since (?:we|\w+ and \w+) last (?:spoke|talked|chatted|caught up|met)|"
    r"(?:(?:it's|it has)\s+)?been (?:a while|ages|forever|too long|so long|super busy|so busy|crazy|hectic|busy|"
    r"a busy|a crazy|a hectic|a (?:few|couple(?: of)?) (?:days|weeks))|long time no (?:see|talk|chat)|"
    r"(?:it\s+)?(?:seems|feels) like (?:forever|ages|a while|years)\s+since|"
    r"(?:(?:some|a)\s+)?(?:\w+\s+)?(?:thing|things|stuff|something)(?:\s+\w+)?\s+(?:has\s+|have\s+)?happened\s+since\s+(?:we|\w+ and \w+)\s+"
    r"(?:last\s+)?(?:spoke|talked|chatted|caught up|met)|"
    r"(?:so\s+)?much (?:since|going on)|(?:a lot|lots|so much) (?:since|to catch up)|"
    r"(?:i've |it's |it has )?been (?:a|such a|so|super|really) (?:busy|crazy|hectic|long|wild) "
    r"(?:week|month|few weeks|few days|time|while)|i'll keep (?:you|ya|u) (?:posted|updated)|"
    r"(?:hey\s+)?(?:(?:we|i)\s+)?haven't\s+(?:talked|spoken|chatted|caught up|seen each other)|"
    r"(?:some\s+)?(?:crazy|wild|big|exciting|interesting|cool|amazing|awesome|great|fun)\s+(?:things?|stuff)\s+"
    r"(?:has\s+|have\s+)?(?:happened|been happening)(?:\s+to\s+(?:me|us))?(?:\s+(?:lately|recently|this week))?(?=\W*$)|"
    r"something\s+(?:crazy|wild|big|exciting|interesting|cool|amazing|awesome|great|fun)\s+happened"
    r"(?:\s+to\s+(?:me|us))?(?:\s+(?:lately|recently|this week))?(?=\W*$)|"
    r"(?:some\s+)?(?:(?:pretty|really|so)\s+)?(?:cool|crazy|big|exciting|fun|wild)?\s*(?:stuff|things)\s+"
    r"(?:has\s+|have\s+)?(?:happened|been happening|going on)\s+since)\b[^-]*$", re.IGNORECASE)
# Support talk between friends: "I'm always here for you", "Glad I could help", "I'm sure
# you'll do great", "I'd love to see it" -- kind, and nothing an agent needs to remember.
_SUPPORT_RE = re.compile(
    r"^(?:(?:i'm|im|i am|i'll|i will)\s+(?:always\s+|still\s+)?|(?:always|still)\s+)(?:be\s+)?(?:here|there|around|"
    r"proud of you)\b|"
    r"^(?:(?:i'm|im|i am)\s+)?(?:so\s+|really\s+|just\s+)?(?:glad|happy)\s+(?:i|we)\s+(?:could|can|was able to)\s+help|"
    r"^(?:(?:i'm|im|i am)\s+)?(?:so\s+|really\s+|just\s+)?(?:glad|happy|sure)\s+(?:that\s+)?(?:you|your|you're|you've|"
    r"you'll|it|the pic|the photo|that|everyone)\b|"
    r"^(?:i'd|i would)\s+love\s+to\s+(?:see|check|hear|read|watch)\b|"
    r"^(?:i\s+)?can\s+(?:only\s+)?imagine\b|"
    r"^(?:and\s+)?if (?:you|ya|u) (?:ever\s+)?need (?:any(?:thing| help)|help|a hand|something)\b[^,]*,\s*"
    r"(?:just\s+)?(?:let me know|(?:i'm|i am) here|ask|reach out|i've got you)\b[^,;-]*$|"
    r"^(?:i'm|im|i am)\s+(?:so\s+|really\s+|super\s+)?(?:thrilled|stoked|happy|excited|glad|proud)\s+for\s+(?:you|ya)\b[^,;-]*$",
    re.IGNORECASE)
_NAMED_RE = re.compile(r"(?<=\w )[A-Z]|\d")
# A guess at how someone else felt: "That must have been amazing", "You must be so proud",
# "I bet the view was incredible" -- the speaker's speculation, no fact about anyone.
_GUESS_RE = re.compile(r"\b(?:must\s+(?:have\s+)?|must've\s+)(?:be|been|feel|felt|love|loved)\b|^(?:i\s+)?bet\s+(?:you|ya|it|that|"
                       r"they|the|your)\b", re.IGNORECASE)
_I_BET_RE = re.compile(r"^i\s+(?=bet\b)", re.IGNORECASE)
_OWN_RE = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|im|my|me|mine|we|we're|we've|our|us)\b", re.IGNORECASE)
# The chat's own logistics: "I'll get the video to you soon", "I'll send it to ya later".
_LOGISTICS_RE = re.compile(
    r"^(?:i'll|i will|will)\s+(?:keep (?:you|ya|u) (?:posted|updated|in the loop)|let (?:you|ya|u) know|(?:get|send|show|text|"
    r"forward)\s+(?:[\w'-]+\s+){0,3}?(?:to\s+)?(?:you|ya|u)(?:\s+(?:soon|later|asap|tomorrow|then))?)\W*$",
    re.IGNORECASE)
# A look at what was shown: "The black and white design looks so fancy", "That cup is so cute".
_LOOKS_RE = re.compile(
    r"^(?:the|that|this|those|these|your|its|their|it|they)\b[\w\s'&-]{0,40}?\b(?:looks?|sounds?|seems?|is|are|was|were)"
    r"\s+(?:so|really|super|very|pretty|totally|absolutely|just|such)\s+(?:a\s+|an\s+)?[\w-]+\W*$", re.IGNORECASE)
_CATCH_UP_LEAD_RE = re.compile(
    r"^(?:(?:so\s+)?(?:a lot|lots|so much|much|some big things|big things|(?:some\s+)?(?:interesting|crazy|"
    r"exciting|cool|big|wild|great)\s+(?:things|stuff))(?:'s|\s+has|\s+have)?\s+"
    r"(?:been\s+)?(?:happened|happening|going on)|since (?:we|\w+ and \w+) (?:last (?:spoke|talked|chatted|caught up)|"
    r"(?:spoke|talked|chatted|caught up) last))[^-,]*"
    r"(?:\s+-\s+|,\s+)", re.IGNORECASE)


# "You got this!", "Jon, you've got this.": encouragement, not that they got something.
_CHEER_RE = re.compile(r"^(?:[A-Z][a-z]+,?\s+)?(?:you|ya|u)(?:'ve|\s+have)?\s+(?:totally\s+|so\s+)?got\s+this\b"
                       r"[^.!?]{0,12}[.!?\u2026]*$", re.IGNORECASE)
# Asking the listener to get back: "Let me know when you've got time and I'll send you a
# vid", "Let me know what you think!" -- the chat's own logistics, with or without a promise.
_LET_ME_KNOW_RE = re.compile(r"^(?:(?:so|and|just|please)\s+)*(?:let\s+me|lemme)\s+know\b",
                             re.IGNORECASE)


def is_talk(sentence: str) -> bool:
    """Catching up, the chat's logistics, support talk, a look at what was shown: no fact."""
    return bool(_CATCH_UP_RE.match(sentence) or _LOGISTICS_RE.match(sentence)
                or _CHEER_RE.match(sentence) or _LET_ME_KNOW_RE.match(sentence)
                or _MEANS_A_LOT_RE.match(sentence)
                or _SUPPORT_RE.match(sentence)
                or (_GUESS_RE.search(sentence) and not _OWN_RE.search(_I_BET_RE.sub("", sentence)))
                or (_LOOKS_RE.match(sentence) and not _NAMED_RE.search(sentence)))
