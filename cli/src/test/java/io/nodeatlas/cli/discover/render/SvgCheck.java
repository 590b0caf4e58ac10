package io.nodeatlas.cli.discover.render;

import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

/**
 * Reads an SVG of {@link SvgRenderer} back with the JDK's XML parser and measures it with the renderer's
 * own arithmetic: each {@code <text>}'s box is its visible characters times the column estimate, from one
 * line's top to its bottom; each box is the {@code <rect>} of the nearest enclosing {@code g.box}.
 */
final class SvgCheck {

  static final String SVG_NS = "http://www.w3.org/2000/svg";

  record Area(double x, double y, double w, double h) {
    boolean overlaps(Area o) {
      return x < o.x + o.w && o.x < x + w && y < o.y + o.h && o.y < y + h;
    }

    boolean inside(Area o) {
      return x >= o.x && y >= o.y && x + w <= o.x + o.w && y + h <= o.y + o.h;
    }
  }

  /** A text element: its visible text (without its {@code <title>}), the whole text if cut, and its areas. */
  record TextItem(Element element, String text, String title, Area area, Area box) {}

  private SvgCheck() {}

  /** Parses with DOCTYPEs refused and no external entity or schema resolved. */
  static Document parse(String svg) throws Exception {
    DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
    f.setNamespaceAware(true);
    f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
    f.setAttribute(XMLConstants.ACCESS_EXTERNAL_DTD, "");
    f.setAttribute(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
    f.setExpandEntityReferences(false);
    DocumentBuilder b = f.newDocumentBuilder();
    b.setErrorHandler(null);
    return b.parse(new InputSource(new StringReader(svg)));
  }

  static List<Element> elements(Document doc, String name) {
    NodeList list = doc.getElementsByTagNameNS(SVG_NS, name);
    List<Element> out = new ArrayList<>();
    for (int i = 0; i < list.getLength(); i++) {
      out.add((Element) list.item(i));
    }
    return out;
  }

  static String visibleText(Element text) {
    StringBuilder out = new StringBuilder();
    for (Node n = text.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n.getNodeType() == Node.TEXT_NODE) {
        out.append(n.getNodeValue());
      }
    }
    return out.toString();
  }

  static String title(Element text) {
    for (Node n = text.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e && e.getLocalName().equals("title")) {
        return e.getTextContent();
      }
    }
    return null;
  }

  static Area rect(Element rect) {
    return new Area(num(rect, "x"), num(rect, "y"), num(rect, "width"), num(rect, "height"));
  }

  static double num(Element e, String attribute) {
    return Double.parseDouble(e.getAttribute(attribute));
  }

  /** The rectangle of the nearest {@code g class="box"} around {@code e} (not {@code e}'s own). */
  static Element boxOf(Element e) {
    for (Node n = e.getParentNode(); n instanceof Element g; n = g.getParentNode()) {
      if (g.getLocalName().equals("g") && "box".equals(g.getAttribute("class"))) {
        for (Node c = g.getFirstChild(); c != null; c = c.getNextSibling()) {
          if (c instanceof Element r && r.getLocalName().equals("rect")) {
            if (r == e) {
              break;
            }
            return r;
          }
        }
      }
    }
    return null;
  }

  static List<TextItem> texts(Document doc) {
    List<TextItem> out = new ArrayList<>();
    for (Element t : elements(doc, "text")) {
      String text = visibleText(t);
      double baseline = num(t, "y");
      Area area = new Area(num(t, "x"), baseline - SvgRenderer.BASELINE, SvgRenderer.textWidth(Text.width(text)),
          SvgRenderer.LINE_HEIGHT);
      Element box = boxOf(t);
      out.add(new TextItem(t, text, title(t), area, box == null ? null : rect(box)));
    }
    return out;
  }

  /** Every way the layout arithmetic fails: overlapping texts, texts or boxes outside their box. */
  static List<String> layoutProblems(Document doc) {
    List<String> problems = new ArrayList<>();
    List<TextItem> texts = texts(doc);
    for (TextItem t : texts) {
      if (t.box() == null || !t.area().inside(t.box())) {
        problems.add("text \"" + t.text() + "\" " + t.area() + " is outside its box " + t.box());
      }
    }
    for (int i = 0; i < texts.size(); i++) {
      for (int j = i + 1; j < texts.size(); j++) {
        if (texts.get(i).area().overlaps(texts.get(j).area())) {
          problems.add("\"" + texts.get(i).text() + "\" overlaps \"" + texts.get(j).text() + "\"");
        }
      }
    }
    List<Element> rects = elements(doc, "rect");
    for (Element r : rects) {
      Element parent = boxOf(r);
      if (parent != null && !rect(r).inside(rect(parent))) {
        problems.add("box " + rect(r) + " is outside its box " + rect(parent));
      }
    }
    for (int i = 0; i < rects.size(); i++) {
      for (int j = i + 1; j < rects.size(); j++) {
        Element a = rects.get(i);
        Element b = rects.get(j);
        boolean nested = isAncestorBox(a, b) || isAncestorBox(b, a);
        if (!nested && rect(a).overlaps(rect(b))) {
          problems.add("boxes " + rect(a) + " and " + rect(b) + " overlap");
        }
      }
    }
    return problems;
  }

  /** Whether {@code outer}'s box encloses {@code inner}'s in the document. */
  private static boolean isAncestorBox(Element outer, Element inner) {
    for (Element r = boxOf(inner); r != null; r = boxOf(r)) {
      if (r == outer) {
        return true;
      }
    }
    return false;
  }
}
