"""Prints size/alignment and member offsets of the named structs from an
object's DWARF (used by gen.sh). Anonymous unions/structs are flattened
into their parent, as C names their members."""
import sys
from elftools.elf.elffile import ELFFile


def attr(die, name, default=None):
    a = die.attributes.get(name)
    return a.value if a else default


def strip(die):
    while die.tag in ("DW_TAG_typedef", "DW_TAG_const_type", "DW_TAG_volatile_type",
                      "DW_TAG_atomic_type"):
        die = die.get_DIE_from_attribute("DW_AT_type")
    return die


def size_of(die):
    die = strip(die)
    if "DW_AT_byte_size" in die.attributes:
        return attr(die, "DW_AT_byte_size")
    if die.tag == "DW_TAG_array_type":
        n = 1
        for c in die.iter_children():
            if c.tag == "DW_TAG_subrange_type":
                n *= attr(c, "DW_AT_upper_bound", -1) + 1
        return n * size_of(die.get_DIE_from_attribute("DW_AT_type"))
    if die.tag == "DW_TAG_pointer_type":
        return 8
    raise SystemExit("no size for %s" % die.tag)


def align_of(die):
    die = strip(die)
    if die.tag in ("DW_TAG_structure_type", "DW_TAG_union_type"):
        return max([align_of(m.get_DIE_from_attribute("DW_AT_type"))
                    for m in die.iter_children() if m.tag == "DW_TAG_member"] or [1])
    if die.tag == "DW_TAG_array_type":
        return align_of(die.get_DIE_from_attribute("DW_AT_type"))
    return size_of(die)


def members(die, prefix, base, out):
    for m in die.iter_children():
        if m.tag != "DW_TAG_member":
            continue
        t = m.get_DIE_from_attribute("DW_AT_type")
        off = base + attr(m, "DW_AT_data_member_location", 0)
        name = attr(m, "DW_AT_name")
        if "DW_AT_bit_size" in m.attributes or "DW_AT_data_bit_offset" in m.attributes:
            bit = attr(m, "DW_AT_data_bit_offset", 0)
            out.append("member %s%s %d:%d %db" % (prefix, name.decode(), base + bit // 8, bit % 8,
                                                  attr(m, "DW_AT_bit_size")))
            continue
        if name is None:
            members(strip(t), prefix, off, out)
            continue
        out.append("member %s%s %d %d" % (prefix, name.decode(), off, size_of(t)))


def main():
    path, names = sys.argv[1], sys.argv[2:]
    found = {}
    with open(path, "rb") as f:
        dwarf = ELFFile(f).get_dwarf_info()
        for cu in dwarf.iter_CUs():
            for die in cu.iter_DIEs():
                if die.tag == "DW_TAG_structure_type" and "DW_AT_byte_size" in die.attributes:
                    n = attr(die, "DW_AT_name")
                    if n and n.decode() in names and n.decode() not in found:
                        lines = ["type %s %d %d" % (n.decode(), size_of(die), align_of(die))]
                        members(die, n.decode() + ".", 0, lines)
                        found[n.decode()] = lines
    for n in names:
        if n not in found:
            raise SystemExit("type %s not found" % n)
        print("\n".join(found[n]))


main()
