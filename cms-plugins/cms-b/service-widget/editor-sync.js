/*
 * Keeps the open editor in step with the assistant: when the widget reports changes to this post
 * (the `service-widget:changes` event), the stored post is read again and the editor shows it, so
 * what the user sees is what is stored, and a save from the editor sends the assistant's values,
 * not stale ones. Block editor: the post's record, its edits and its blocks. Classic editor: the
 * title, content and excerpt fields, the publish box as WordPress renders it for the stored
 * status, and the fields taken as saved (leaving the page does not ask about unsaved changes).
 */
(function () {
  'use strict';
  var wp = window.wp;

  function refreshBlockEditor(record) {
    var core = wp.data.dispatch('core');
    var editor = wp.data.dispatch('core/editor');
    core.receiveEntityRecords('postType', record.type, [record], undefined, true);
    // Edits equal to the stored values are dropped: nothing stale is left to save.
    editor.editPost({ title: record.title.raw, excerpt: record.excerpt.raw, status: record.status });
    editor.resetEditorBlocks(wp.blocks.parse(record.content.raw), { __unstableShouldCreateUndoLevel: false });
  }

  /*
   * The publish box ("Publish" meta box) as post_submit_meta_box() renders it: for a published
   * post "Published", an "Update" button that saves, no "Save Draft"; for a draft "Draft", a
   * "Publish" button that publishes and "Save Draft". The words are WordPress's own, translated
   * as post.js translates them. Only the two statuses the assistant moves between are handled.
   */
  function refreshPublishBox($, status) {
    var __ = wp.i18n.__;
    var $select = $('#post_status');
    if ((status !== 'publish' && status !== 'draft') || !$select.length || $('#original_post_status').val() === status) return;
    var published = status === 'publish';

    var $publishOption = $select.find('option[value="publish"]');
    if (published && !$publishOption.length) $select.prepend($('<option value="publish"></option>').text(__('Published')));
    if (!published) $publishOption.remove();
    $select.val(status);
    $('#hidden_post_status, #original_post_status').val(status);
    $('#post-status-display').text($select.find('option:selected').text());

    var $stamp = $('#timestamp');
    var $date = $stamp.children('b');
    var label = $stamp.contents().first().text().trim();
    if ($date.length === 1 && (label === __('Published on:') || label === __('Publish on:'))) {
      $stamp.empty().append(document.createTextNode('\n' + (published ? __('Published on:') : __('Publish on:')) + ' '), $date, ' ');
    }

    var $publish = $('#publish');
    var $save = $('#save-post');
    if (published) {
      $save.hide();
      $publish.attr('name', 'save').val(__('Update'));
      $('#original_publish').val(__('Update'));
      return;
    }
    if (!$save.length) {
      // The page was rendered for a published post, which has no "Save Draft". Cloned with the
      // handlers post.js bound to the buttons on load (disable on submit, no leave prompt).
      $save = $publish.clone(true).attr({ id: 'save-post', name: 'save', 'class': 'button' });
      $('#save-action').prepend($save, $('<span class="spinner"></span>'));
    }
    $save.show().val(__('Save Draft'));
    $publish.attr('name', 'publish').val(__('Publish'));
    $('#original_publish').val(__('Publish'));
  }

  /*
   * WordPress asks before the page is left (post.js, beforeunload) when the title, content or
   * excerpt differ from what the page was loaded with; autosave.js keeps that baseline to itself
   * and takes it again on `tinymce-editor-init.autosave`. The fields now hold what is stored, so
   * they become the baseline through that event (the namespace runs autosave.js's handlers
   * alone). Its local backup is updated first, so it does not report a difference either.
   */
  function markClassicEditorSaved($, tiny) {
    if (!wp.autosave) return;
    if (wp.autosave.local && wp.autosave.local.save) {
      wp.autosave.local.save({ post_title: $('#title').val() || '', content: $('#content').val() || '', excerpt: $('#excerpt').val() || '' });
    }
    var editor = tiny && !tiny.isHidden() ? tiny : { id: 'content', save: function () {} };
    $(document).trigger('tinymce-editor-init.autosave', [editor]);
  }

  function refreshClassicEditor(record) {
    var $ = window.jQuery;
    $('#title').val(record.title.raw);
    $('#excerpt').val(record.excerpt.raw);
    $('#content').val(record.content.raw);
    var tiny = window.tinymce && window.tinymce.get('content');
    if (tiny && !tiny.isHidden()) {
      // As WordPress restores a backup into the visual editor: paragraphs from blank lines first.
      var content = tiny.settings.wpautop && window.switchEditors ? window.switchEditors.wpautop(record.content.raw) : record.content.raw;
      tiny.setContent(content);
      tiny.setDirty(false);
    }
    refreshPublishBox($, record.status);
    markClassicEditorSaved($, tiny);
  }

  document.addEventListener('service-widget:changes', function (event) {
    var postId = Number(event.detail && event.detail.itemId);
    if (!postId || !wp || !wp.apiFetch) return;
    wp.apiFetch({ path: '/wp/v2/posts/' + postId + '?context=edit' }).then(function (record) {
      var blockEditor = wp.data && wp.data.select('core/editor');
      if (blockEditor && blockEditor.getCurrentPostId && blockEditor.getCurrentPostId() === postId) refreshBlockEditor(record);
      else refreshClassicEditor(record);
    });
  });
})();
